package ui

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/memory"
)

// editRow opens row n of the inspector in its detail view and then in the
// editor.
func editRow(t *testing.T, i *inspector, n int) {
	t.Helper()
	i.list.Select(n)
	if !i.detail.shown {
		t.Fatalf("selecting row %d does not open its detail view", n)
	}
	test.Tap(button(t, i.detail.root, "Edit"))
}

// addMemories fills the global store of fb.
func addMemories(t *testing.T, fb *fakeBackend, es ...memory.Entry) []memory.Entry {
	t.Helper()
	st, err := fb.store(agent.ScopeGlobal, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []memory.Entry
	for _, e := range es {
		if e.Source == "" {
			e.Source = memory.SourceUser
		}
		got, _, err := st.Add(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got)
	}
	return out
}

// allText is the text under o, the canvas texts of hints included.
func allText(o fyne.CanvasObject) string {
	s := shownText(o)
	for _, c := range objects[*canvas.Text](o) {
		s += c.Text + "\n"
	}
	return s
}

func rowTexts(i *inspector) []string {
	var out []string
	for _, r := range i.rows {
		out = append(out, r.e.Text)
	}
	return out
}

func TestInspectorPrefixSearch(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		addMemories(t, fb,
			memory.Entry{Kind: memory.KindFact, Text: "Back up the laptop with rsync to the NAS"},
			memory.Entry{Kind: memory.KindCorrection, Text: "Deploy with the dry-run flag first"},
			memory.Entry{Kind: memory.KindFact, Text: "The NAS runs rsyncd on port 873"})
	})
	i := h.u.insp
	test.Type(i.search, "rsyn")
	h.settle()
	got := rowTexts(i)
	if len(got) < 2 || !strings.Contains(got[0], "rsync") || !strings.Contains(got[1], "rsync") {
		t.Fatalf("search for the prefix rsyn shows %q, want the two rsync memories first", got)
	}
	if i.rows[0].score <= 0 {
		t.Errorf("prefix results are not ranked: %+v", i.rows[0])
	}
	i.search.SetText("laptop rsy")
	h.settle()
	if got := rowTexts(i); len(got) == 0 || !strings.Contains(got[0], "laptop") {
		t.Fatalf("search for laptop rsy ranks %q", got)
	}
	i.search.SetText("rsyn ") // a finished word is searched as typed
	h.settle()
	if slices.ContainsFunc(rowTexts(i), func(s string) bool { return strings.Contains(s, "rsync") }) {
		t.Fatalf("rsyn followed by a space still completes: %q", rowTexts(i))
	}
}

func TestInspectorFiltersAndSort(t *testing.T) {
	var es []memory.Entry
	h := newHarness(t, func(fb *fakeBackend) {
		es = addMemories(t, fb,
			memory.Entry{Kind: memory.KindPreference, Text: "Answers in Chinese", Pinned: true},
			memory.Entry{Kind: memory.KindFact, Text: "The API runs on port 8080", Source: memory.SourceTool},
			memory.Entry{Kind: memory.KindLesson, Text: "Run the tests before pushing", Source: memory.SourceAuto},
			memory.Entry{Kind: memory.KindFact, Text: "The database is Postgres 16", Source: memory.SourceAuto})
		st, _ := fb.store(agent.ScopeGlobal, "")
		if err := st.MarkUsed(es[3].ID, es[3].ID, es[1].ID); err != nil {
			t.Fatal(err)
		}
	})
	i := h.u.insp
	fb := i.filters
	test.Tap(fb.kinds[memory.KindFact])
	h.settle()
	if got := rowTexts(i); len(got) != 2 || i.count.seg.Text != "2 of 4" {
		t.Fatalf("kind fact shows %q (%s)", got, i.count.seg.Text)
	}
	test.Tap(fb.origins[originDistilled])
	h.settle()
	if got := rowTexts(i); !slices.Equal(got, []string{"The database is Postgres 16"}) {
		t.Fatalf("fact and distilled show %q", got)
	}
	test.Tap(fb.kinds[memory.KindFact])
	test.Tap(fb.origins[originDistilled])
	test.Tap(fb.pinned)
	h.settle()
	if got := rowTexts(i); !slices.Equal(got, []string{"Answers in Chinese"}) {
		t.Fatalf("pinned shows %q", got)
	}
	test.Tap(fb.pinned)
	fb.sort.SetSelectedIndex(sortMostUsed)
	h.settle()
	if got := rowTexts(i); len(got) != 4 || got[0] != "The database is Postgres 16" || got[1] != "The API runs on port 8080" {
		t.Fatalf("most used first shows %q", got)
	}
	fb.sort.SetSelectedIndex(sortNewest)
	h.settle()
	if got := rowTexts(i); got[0] != "The database is Postgres 16" || got[3] != "Answers in Chinese" {
		t.Fatalf("newest first shows %q", got)
	}
	// Filters apply to a search too.
	test.Tap(fb.origins[originModel])
	test.Type(i.search, "port")
	h.settle()
	if got := rowTexts(i); !slices.Equal(got, []string{"The API runs on port 8080"}) {
		t.Fatalf("search port among the model's shows %q", got)
	}
}

func TestInspectorBulkDeleteAndPinUndo(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		addMemories(t, fb,
			memory.Entry{Kind: memory.KindFact, Text: "first memory"},
			memory.Entry{Kind: memory.KindFact, Text: "second memory"},
			memory.Entry{Kind: memory.KindFact, Text: "third memory"})
	})
	i := h.u.insp
	path := filepath.Join(h.fb.dir, "memory.json")
	test.Tap(i.sel.toggle)
	if !i.sel.box.Visible() {
		t.Fatal("Select does not show the bulk actions")
	}
	i.list.Select(0)
	i.list.Select(2)
	if i.detail.shown || len(i.sel.ids) != 2 || i.sel.label.Text != "2 selected" {
		t.Fatalf("selecting two rows: detail %v, %d marked, %q", i.detail.shown, len(i.sel.ids), i.sel.label.Text)
	}
	test.Tap(button(t, i.sel.box, "Pin"))
	h.settle()
	pinned := 0
	for _, e := range readEntries(t, path) {
		if e.Pinned {
			pinned++
		}
	}
	if pinned != 2 || i.undoLabel.Text != "Pinned 2 memories" {
		t.Fatalf("bulk pin: %d pinned in the file, undo says %q", pinned, i.undoLabel.Text)
	}
	test.Tap(button(t, i.undoBox, "Undo"))
	h.settle()
	for _, e := range readEntries(t, path) {
		if e.Pinned {
			t.Fatalf("undo of the bulk pin left %q pinned", e.Text)
		}
	}

	test.Tap(button(t, i.sel.box, "All"))
	test.Tap(button(t, i.sel.box, "Delete"))
	h.settle()
	if got := liveTexts(readEntries(t, path)); len(got) != 0 || len(i.rows) != 0 {
		t.Fatalf("bulk delete of all left %q in the file, %d rows", got, len(i.rows))
	}
	if i.sel.on || i.undoLabel.Text != "Deleted 3 memories" {
		t.Fatalf("after bulk delete: selecting %v, undo says %q", i.sel.on, i.undoLabel.Text)
	}
	test.Tap(button(t, i.undoBox, "Undo"))
	h.settle()
	if got := liveTexts(readEntries(t, path)); len(got) != 3 || len(i.rows) != 3 {
		t.Fatalf("one undo put back %q (%d rows), want all three", got, len(i.rows))
	}
}

func TestInspectorDetailShowsHistory(t *testing.T) {
	var cur memory.Entry
	h := newHarness(t, func(fb *fakeBackend) {
		old := addMemories(t, fb, memory.Entry{Kind: memory.KindFact, Text: "The API runs on port 8080"})[0]
		st, _ := fb.store(agent.ScopeGlobal, "")
		var err error
		cur, err = st.Supersede(old.ID, memory.Entry{Kind: memory.KindCorrection, Text: "The API runs on port 9090 since March",
			Source: memory.SourceTool})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.MarkUsed(cur.ID, cur.ID); err != nil {
			t.Fatal(err)
		}
	})
	i := h.u.insp
	if len(i.rows) != 1 {
		t.Fatalf("%d rows, want the current version only", len(i.rows))
	}
	i.list.Select(0)
	h.settle()
	d := i.detail
	if !d.shown || i.list.Visible() || d.text.Text != cur.Text {
		t.Fatalf("detail shown %v, list visible %v, text %q", d.shown, i.list.Visible(), d.text.Text)
	}
	if !strings.Contains(d.facts.Text, "Source: the model's") || !strings.Contains(d.facts.Text, "Used 2 times") {
		t.Errorf("detail facts:\n%s", d.facts.Text)
	}
	hist := shownText(d.history)
	if !d.histHdr.Visible() || !strings.Contains(hist, "port 8080") || !strings.Contains(hist, "replaced") {
		t.Fatalf("history shows %q", hist)
	}
	test.Tap(button(t, d.root, "Pin"))
	h.settle()
	if !d.e.Pinned || d.pin.Text != "Unpin" {
		t.Fatalf("pin from the detail view: pinned %v, button %q", d.e.Pinned, d.pin.Text)
	}
	// Restore brings the earlier text back; the text it replaces stays in
	// the history, and the memory is the person's now.
	test.Tap(button(t, d.history, "Restore this text"))
	h.settle()
	if d.e.Text != "The API runs on port 8080" || d.e.Source != memory.SourceUser {
		t.Fatalf("after Restore the memory is %+v", d.e)
	}
	if hist := shownText(d.history); !strings.Contains(hist, "port 9090 since March") {
		t.Errorf("the replaced text is not in the history: %q", hist)
	}
	test.Tap(button(t, d.root, "Back"))
	if d.shown || !i.list.Visible() {
		t.Fatal("Back does not return to the list")
	}
}

func TestInspectorFullStateReviewsLeastUsed(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		es := addMemories(t, fb,
			memory.Entry{Kind: memory.KindFact, Text: "used twice"},
			memory.Entry{Kind: memory.KindFact, Text: "never used"},
			memory.Entry{Kind: memory.KindFact, Text: "used once"})
		st, _ := fb.store(agent.ScopeGlobal, "")
		if err := st.MarkUsed(es[0].ID, es[0].ID, es[2].ID); err != nil {
			t.Fatal(err)
		}
	})
	i := h.u.insp
	if i.fullBox.Visible() {
		t.Fatal("a store under its cap shows as full")
	}
	i.cap = 3
	i.reload()
	h.settle()
	if !i.fullBox.Visible() || !strings.Contains(i.fullText.Text, "Memory is full (3 of 3)") {
		t.Fatalf("full state shown %v: %q", i.fullBox.Visible(), i.fullText.Text)
	}
	test.Type(i.search, "used")
	test.Tap(button(t, i.fullBox, "Review least used"))
	h.settle()
	if got := rowTexts(i); !slices.Equal(got, []string{"never used", "used once", "used twice"}) || i.search.Text != "" {
		t.Fatalf("review lists %q (search %q), want least used first", got, i.search.Text)
	}
	if i.filters.sort.SelectedIndex() != sortLeastUsed {
		t.Error("the sort does not show least used")
	}
}

func TestSettingsFetchModelsBeforeSave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(fb *fakeBackend) {
			fb.cfg.BaseURL, fb.cfg.Model = "", ""
			fb.endpoints = map[string][]string{
				"http://127.0.0.1:11434/v1": {"nomic-embed-text", "qwen2.5:7b"},
				"http://127.0.0.1:1234/v1":  {"llama-3.2-3b"},
			}
		})
		h.settle()
		f := h.u.settings
		if f == nil {
			t.Fatal("the first run does not open the settings")
		}
		f.preset.SetSelected("Ollama")
		h.settle()
		if f.endpoint.Text != "http://127.0.0.1:11434/v1" {
			t.Fatalf("the Ollama preset filled %q", f.endpoint.Text)
		}
		if !slices.Equal(f.models, []string{"nomic-embed-text", "qwen2.5:7b"}) || f.model.Text != "qwen2.5:7b" {
			t.Fatalf("before saving the models are %q, chosen %q", f.models, f.model.Text)
		}
		if f.status.seg.Text != "2 models available at this endpoint." {
			t.Errorf("status %q", f.status.seg.Text)
		}
		// Typing is debounced: one request for the endpoint typed in pieces.
		before := len(h.fb.askedModels())
		f.endpoint.SetText("")
		test.Type(f.endpoint, "http://127.0.0.1:1234/v1")
		h.settle()
		if asked := h.fb.askedModels()[before:]; !slices.Equal(asked, []string{"http://127.0.0.1:1234/v1"}) {
			t.Fatalf("typing the endpoint asked %q", asked)
		}
		if f.model.Text != "llama-3.2-3b" || f.status.seg.Text != "1 model available at this endpoint." {
			t.Fatalf("after switching endpoints the model is %q (%q)", f.model.Text, f.status.seg.Text)
		}
		overlayButton(t, h, "Save")
		if got := h.u.bar.model.Selected; got != "llama-3.2-3b" {
			t.Fatalf("right after Save the toolbar shows %q", got)
		}
		h.settle()
		if c := h.fb.Config(); c.BaseURL != "http://127.0.0.1:1234/v1" || c.Model != "llama-3.2-3b" {
			t.Fatalf("saved %v", c)
		}
	})
}

func TestSettingsShowEnvironmentValuesReadOnly(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.cfg.BaseURL, fb.cfg.APIKey = "http://127.0.0.1:11434/v1", "sk-from-env-9876"
		fb.sources = agent.ConfigSources{APIKey: agent.EnvAPIKey, Model: agent.EnvModel, Detected: true}
		fb.endpoints = map[string][]string{"http://127.0.0.1:11434/v1": {"other"}}
	})
	h.u.openSettings()
	h.settle()
	f := h.u.settings
	if !f.key.Disabled() || !f.model.Disabled() || f.endpoint.Disabled() {
		t.Fatalf("read-only: key %v, model %v, endpoint %v", f.key.Disabled(), f.model.Disabled(), f.endpoint.Disabled())
	}
	text := allText(h.w.Canvas().Overlays().Top())
	for _, want := range []string{"From the environment variable OPENAI_API_KEY", "From the environment variable ENGRAM_MODEL",
		"Using Ollama at 127.0.0.1:11434"} {
		if !strings.Contains(text, want) {
			t.Errorf("the settings do not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "sk-from-env") {
		t.Error("the settings show the key")
	}
	if f.model.Text != "test-model" {
		t.Errorf("a model from the environment was replaced by %q", f.model.Text)
	}
	// Enter in a field submits the dialog.
	f.topK.SetText("7")
	f.topK.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.settle()
	if h.u.settingsOpen || h.fb.Config().RecallTopK != 7 {
		t.Fatalf("Enter did not save: open %v, top-k %d", h.u.settingsOpen, h.fb.Config().RecallTopK)
	}
}

func TestToolbarPicksDefaultModel(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.cfg.Model = "gone-model" })
	h.settle()
	if got := h.fb.Config().Model; got != "test-model" {
		t.Fatalf("a model the endpoint does not list stays configured: %q", got)
	}
	if h.u.bar.model.Selected != "test-model" || slices.Contains(h.u.bar.model.Options, "gone-model") {
		t.Fatalf("toolbar: %q of %q", h.u.bar.model.Selected, h.u.bar.model.Options)
	}
}

func TestInstructionsEditRoundTrip(t *testing.T) {
	ah := newAgentHarness(t, nil)
	dir := t.TempDir()
	ah.u.pinProject(dir)
	ah.settle()
	test.Tap(ah.u.bar.agents)
	ah.settle()
	ed := ah.u.instrEd
	if ed == nil || ed.path != filepath.Join(dir, "AGENTS.md") || ed.text.Text != "" {
		t.Fatalf("the indicator opened %+v", ed)
	}
	test.Type(ed.text, "Always answer in haiku.")
	overlayButton(t, ah.harness, "Save")
	ah.waitFor("the indicator", func() bool { return ah.u.bar.agents.Text == "AGENTS.md ✓" })
	if b, err := os.ReadFile(ed.path); err != nil || string(b) != "Always answer in haiku." {
		t.Fatalf("AGENTS.md holds %q, %v", b, err)
	}
	ah.ask("hello")
	if sys := ah.srv.Requests()[0].System(); !strings.Contains(sys, "Always answer in haiku.") {
		t.Errorf("the next turn does not follow the saved AGENTS.md:\n%s", sys)
	}
	// The global file opens from the settings and holds what was saved.
	if err := os.WriteFile(ah.paths.GlobalInstructions(), []byte("be brief\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ah.u.editInstructions("")
	ah.settle()
	if ed := ah.u.instrEd; ed.path != ah.paths.GlobalInstructions() || ed.text.Text != "be brief\n" {
		t.Fatalf("the global editor opened %s with %q", ed.path, ed.text.Text)
	}
}

func TestBannerClearsWhenFileRestored(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		st, err := ah.ag.Memory(agent.ScopeGlobal, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "kept safe", Source: memory.SourceUser}); err != nil {
			t.Fatal(err)
		}
	})
	i := ah.u.insp
	path := ah.paths.GlobalMemory()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"version": 1, "entries": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	ah.waitFor("the banner", func() bool { return i.bannerBox.Visible() })
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	ah.waitFor("the banner to go", func() bool { return !i.bannerBox.Visible() })
	if got := rowTexts(i); !slices.Equal(got, []string{"kept safe"}) {
		t.Fatalf("after the restore the list shows %q", got)
	}
}

func TestNarrowWindowCollapsesPanels(t *testing.T) {
	h := newHarness(t, nil)
	if w := h.w.Content().MinSize().Width; w > 720 {
		t.Fatalf("the window cannot be narrower than %.0f px", w)
	}
	h.w.Resize(fyne.NewSize(700, 600))
	if h.u.list.root.Visible() {
		t.Error("the chat list stays at 700 px")
	}
	if !h.u.pane.root.Visible() || !h.u.drawer {
		t.Error("at 700 px the chat pane should show, the inspector as a drawer over it (TestInspectorDrawerWhenNarrow)")
	}
	h.w.Resize(fyne.NewSize(1200, 760))
	if !h.u.list.root.Visible() {
		t.Error("a wide window does not show the chat list again")
	}
	// A deep project folder does not widen the toolbar.
	deep := filepath.Join(t.TempDir(), "clients", "acme-corporation", "projects", "2026", "web-frontend")
	h.u.pinProject(deep)
	h.settle()
	if got := h.u.bar.project.Text; got != "…"+string(filepath.Separator)+"web-frontend" {
		t.Errorf("the project button shows %q", got)
	}
	if w := h.w.Content().MinSize().Width; w > 720 {
		t.Fatalf("with a deep project folder the window cannot be narrower than %.0f px", w)
	}
}

func TestShortcutNamesAndQuit(t *testing.T) {
	want := "Ctrl+Q"
	if runtime.GOOS == "darwin" {
		want = "⌘Q"
	}
	if got := shortcutName(fyne.KeyQ); got != want {
		t.Errorf("Ctrl+Q is shown as %q, want %q", got, want)
	}
	h := newHarness(t, nil)
	if !h.u.shortcut(&desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}) {
		t.Error("Ctrl+Q is not a window shortcut")
	}
}
