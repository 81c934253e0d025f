package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/memory"
	"engram/ui/internal/look"
)

// objects returns every object under o that is of type T.
func objects[T any](o fyne.CanvasObject) []T {
	var out []T
	for _, x := range test.LaidOutObjects(o) {
		if v, ok := x.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// button finds the visible button labelled text under o.
func button(t *testing.T, o fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	for _, b := range objects[*widget.Button](o) {
		if b.Text == text && b.Visible() {
			return b
		}
	}
	t.Fatalf("no button %q", text)
	return nil
}

// shownText is all the text of the labels and rich texts under o.
func shownText(o fyne.CanvasObject) string {
	var b strings.Builder
	for _, l := range objects[*widget.Label](o) {
		b.WriteString(l.Text + "\n")
	}
	for _, r := range objects[*widget.RichText](o) {
		b.WriteString(r.String() + "\n")
	}
	for _, c := range objects[*caption](o) {
		b.WriteString(c.Text() + "\n")
	}
	return b.String()
}

func pressReturn(e *messageEntry, shift bool) {
	if shift {
		e.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
		defer e.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	}
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

func TestEnterSendsAndAnswerStreams(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{
				agent.TurnStarted{ChatID: id, Text: text},
				agent.RecallDone{ChatID: id},
				agent.Delta{ChatID: id, Text: "Run `make deploy` "},
				agent.Delta{ChatID: id, Text: "with **dry-run** first:\n\n"},
				agent.Delta{ChatID: id, Text: "```sh\nmake deploy DRY_RUN=1\n```\n"},
				agent.TurnDone{ChatID: id, At: time.Now()},
			}
		}
	})
	in := h.u.pane.input
	if h.w.Canvas().Focused() != in {
		t.Fatalf("focus is on %T, want the message box", h.w.Canvas().Focused())
	}
	test.Type(in, "How do I deploy?")
	pressReturn(in, true)
	test.Type(in, "Briefly.")
	if got := h.fb.sentMessages(); len(got) != 0 {
		t.Fatalf("Shift+Enter sent %q", got)
	}
	if in.Text != "How do I deploy?\nBriefly." {
		t.Fatalf("message box = %q, want two lines", in.Text)
	}
	pressReturn(in, false)
	if in.Text != "" {
		t.Errorf("message box not cleared after sending: %q", in.Text)
	}
	h.waitFor("the answer", func() bool {
		a := h.u.currentSession().lastAnswer()
		return a != nil && !a.pending
	})
	if got := h.fb.sentMessages(); len(got) != 1 || got[0] != "chat1: How do I deploy?\nBriefly." {
		t.Fatalf("sent %q", got)
	}
	a := h.u.currentSession().lastAnswer()
	want := "Run `make deploy` with **dry-run** first:\n\n```sh\nmake deploy DRY_RUN=1\n```\n"
	if a.Text != want {
		t.Fatalf("answer = %q, want %q", a.Text, want)
	}
	shown := shownText(h.u.pane.root)
	for _, s := range []string{"How do I deploy?", "dry-run", "make deploy DRY_RUN=1", "No memories recalled"} {
		if !strings.Contains(shown, s) {
			t.Errorf("chat pane does not show %q:\n%s", s, shown)
		}
	}
	if !h.u.pane.send.Visible() || h.u.pane.stopB.Visible() {
		t.Error("after the turn Send should show and Stop hide")
	}
	// The code block's copy button copies the code.
	var copied bool
	for _, b := range objects[*widget.Button](h.u.pane.views[1].root) {
		if b.Text == "" && b.Icon == look.FlatIcon(theme.ContentCopyIcon()) {
			test.Tap(b)
			if fyne.CurrentApp().Clipboard().Content() == "make deploy DRY_RUN=1" {
				copied = true
			}
		}
	}
	if !copied {
		t.Error("no button copied the code block")
	}
}

func TestRecalledMemoriesDisclosure(t *testing.T) {
	var e1, e2 memory.Entry
	h := newHarness(t, func(fb *fakeBackend) {
		st, err := fb.store(agent.ScopeGlobal, "")
		if err != nil {
			t.Fatal(err)
		}
		e1, _, _ = st.Add(memory.Entry{Kind: memory.KindCorrection, Text: "部署脚本默认先 dry-run", Source: memory.SourceUser})
		e2, _, _ = st.Add(memory.Entry{Kind: memory.KindPreference, Text: "回复使用中文", Source: memory.SourceUser, Pinned: true})
		st.Add(memory.Entry{Kind: memory.KindFact, Text: "The frontend uses Vite and React", Source: memory.SourceAuto})
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{
				agent.TurnStarted{ChatID: id, Text: text},
				agent.RecallDone{ChatID: id, Hits: []agent.RecalledHit{
					{Hit: memory.Hit{Entry: e1, Score: 2.5, Terms: []string{"部署", "dry-run"}}, Scope: agent.ScopeGlobal},
					{Hit: memory.Hit{Entry: e2, Score: 1.25, Terms: []string{"中文"}}, Scope: agent.ScopeGlobal},
				}},
				agent.ToolCall{ChatID: id, CallID: "c1", Name: "memory_search", Args: `{"query":"deploy"}`},
				agent.ToolResult{ChatID: id, CallID: "c1", Name: "memory_search", Result: "1 memory found"},
				agent.Delta{ChatID: id, Text: "先 dry-run，再部署。"},
				agent.TurnDone{ChatID: id},
			}
		}
	})
	in := h.u.pane.input
	test.Type(in, "部署脚本怎么改？")
	pressReturn(in, false)
	h.waitFor("the answer", func() bool {
		a := h.u.currentSession().lastAnswer()
		return a != nil && !a.pending
	})
	view := h.u.pane.views[len(h.u.pane.views)-1]
	d := button(t, view.root, "2 memories recalled · 1 tool call")
	if strings.Contains(shownText(view.root), "score 2.50") {
		t.Fatal("the disclosure is open before it was tapped")
	}
	test.Tap(d)
	shown := shownText(view.root)
	for _, s := range []string{"部署脚本默认先 dry-run", "score 2.50", "matched: 部署, dry-run", "回复使用中文",
		"score 1.25", "memory_search", `{"query":"deploy"}`, "→ 1 memory found"} {
		if !strings.Contains(shown, s) {
			t.Errorf("the disclosure does not show %q:\n%s", s, shown)
		}
	}
	if _, ok := h.u.insp.hits[e1.ID]; !ok {
		t.Error("the inspector does not highlight the recalled memory")
	}
	if _, ok := h.u.insp.hits[e2.ID]; !ok {
		t.Error("the inspector does not highlight the second recalled memory")
	}
	if !strings.Contains(shownText(h.u.insp.root), "recalled for this answer · score 2.50") {
		t.Error("no inspector row says it was recalled")
	}
	test.AssertRendersToMarkup(t, "chat_recalled.xml", h.w.Canvas())
}

func TestAutoRecallIsPerChat(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.NewChat()
		fb.NewChat()
	})
	if h.u.current != "chat2" {
		t.Fatalf("selected %q, want the newest chat", h.u.current)
	}
	rec := h.u.bar.recall
	if !rec.Checked {
		t.Fatal("auto-recall should start on (the default)")
	}
	test.Tap(rec)
	h.settle()
	c1, _ := h.fb.Chat("chat1")
	c2, _ := h.fb.Chat("chat2")
	if c2.AutoRecall || !c1.AutoRecall {
		t.Fatalf("auto-recall chat1=%v chat2=%v, want only chat2 off", c1.AutoRecall, c2.AutoRecall)
	}
	h.u.list.list.Select(1)
	h.settle()
	if h.u.current != "chat1" || !rec.Checked {
		t.Fatalf("chat1 selected=%v, auto-recall shown %v, want on", h.u.current == "chat1", rec.Checked)
	}
	if h.w.Canvas().Focused() != h.u.pane.input {
		t.Error("selecting a chat should focus the message box")
	}
	h.u.list.list.Select(0)
	h.settle()
	if rec.Checked {
		t.Fatal("chat2's auto-recall shows on after switching back")
	}
}

func readEntries(t *testing.T, path string) []memory.Entry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	es, _, err := memory.ParseFile(b, time.Now())
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return es
}

func liveTexts(es []memory.Entry) []string {
	var out []string
	for _, e := range es {
		if e.Live() {
			out = append(out, string(e.Kind)+":"+e.Text)
		}
	}
	return out
}

func TestInspectorAddEditDeleteUndo(t *testing.T) {
	h := newHarness(t, nil)
	i := h.u.insp
	path := filepath.Join(h.fb.dir, "memory.json")

	test.Tap(i.add)
	test.Type(i.ed.text, "Prefers answers in Chinese")
	i.ed.kind.SetSelected(string(memory.KindPreference))
	test.Tap(i.ed.pinned)
	test.Tap(i.ed.saveB)
	h.settle()
	es := readEntries(t, path)
	if got := liveTexts(es); len(got) != 1 || got[0] != "preference:Prefers answers in Chinese" || !es[0].Pinned {
		t.Fatalf("after add the file holds %q (pinned %v)", got, len(es) > 0 && es[0].Pinned)
	}
	if len(i.rows) != 1 || i.ed.root.Visible() {
		t.Fatalf("after add: %d rows, editor visible %v", len(i.rows), i.ed.root.Visible())
	}

	editRow(t, i, 0)
	if !i.ed.root.Visible() || i.ed.text.Text != "Prefers answers in Chinese" {
		t.Fatal("selecting a row does not open it in the editor")
	}
	i.ed.text.SetText("回答使用中文")
	i.ed.kind.SetSelected(string(memory.KindCorrection))
	test.Tap(i.ed.saveB)
	h.settle()
	if got := liveTexts(readEntries(t, path)); len(got) != 1 || got[0] != "correction:回答使用中文" {
		t.Fatalf("after edit the file holds %q", got)
	}

	editRow(t, i, 0)
	test.Tap(i.ed.del)
	h.settle()
	if got := liveTexts(readEntries(t, path)); len(got) != 0 {
		t.Fatalf("after delete the file still holds %q", got)
	}
	if len(i.rows) != 0 || !i.undoBox.Visible() {
		t.Fatalf("after delete: %d rows, undo shown %v", len(i.rows), i.undoBox.Visible())
	}
	test.Tap(button(t, i.undoBox, "Undo"))
	h.settle()
	if got := liveTexts(readEntries(t, path)); len(got) != 1 || got[0] != "correction:回答使用中文" {
		t.Fatalf("after undo the file holds %q", got)
	}
	if len(i.rows) != 1 {
		t.Fatalf("after undo the list has %d rows", len(i.rows))
	}
}

func TestInspectorSearchRanks(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		st, _ := fb.store(agent.ScopeGlobal, "")
		st.Add(memory.Entry{Kind: memory.KindFact, Text: "The frontend uses Vite and React", Source: memory.SourceUser})
		st.Add(memory.Entry{Kind: memory.KindCorrection, Text: "Deploy with the dry-run flag first", Source: memory.SourceUser})
	})
	i := h.u.insp
	if len(i.rows) != 2 {
		t.Fatalf("%d rows, want 2", len(i.rows))
	}
	test.Type(i.search, "deploy")
	h.settle()
	if len(i.rows) == 0 || !strings.Contains(i.rows[0].e.Text, "Deploy") || i.rows[0].score <= 0 {
		t.Fatalf("search for deploy ranks %+v first", i.rows)
	}
	i.search.SetText("")
	h.settle()
	if len(i.rows) != 2 {
		t.Fatalf("clearing the search shows %d rows, want 2", len(i.rows))
	}
}

func TestMemoryChangedKeepsEditInProgress(t *testing.T) {
	h := newHarness(t, nil)
	i := h.u.insp
	test.Tap(i.add)
	test.Type(i.ed.text, "a draft in progress")
	st, _ := h.fb.store(agent.ScopeGlobal, "")
	if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "added by engramctl", Source: memory.SourceUser}); err != nil {
		t.Fatal(err)
	}
	h.fb.events <- agent.MemoryChanged{Scope: agent.ScopeGlobal}
	h.waitFor("the new memory", func() bool { return len(i.rows) == 1 })
	if !i.ed.root.Visible() || i.ed.text.Text != "a draft in progress" {
		t.Fatalf("the edit in progress was lost: visible %v, text %q", i.ed.root.Visible(), i.ed.text.Text)
	}
}

func TestPinProject(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := h.u.bar.agents.Text; got != "AGENTS.md –" {
		t.Fatalf("indicator before pinning = %q", got)
	}
	h.u.pinProject(dir)
	h.settle()
	c, _ := h.fb.Chat("chat1")
	if c.Project != dir {
		t.Fatalf("chat project = %q, want %q", c.Project, dir)
	}
	if got := h.u.bar.project.Text; got != projectLabel(dir, "") {
		t.Errorf("project button says %q", got)
	}
	if got := h.u.bar.agents.Text; got != "AGENTS.md ✓" {
		t.Errorf("indicator after pinning = %q", got)
	}
	i := h.u.insp
	if i.scope != agent.ScopeProject || i.proj.Text != "Project: "+filepath.Base(dir) || i.store == nil {
		t.Fatalf("inspector scope %s, tab %q, store %v", i.scope, i.proj.Text, i.store != nil)
	}
	test.Tap(i.add)
	test.Type(i.ed.text, "This project deploys with make deploy")
	test.Tap(i.ed.saveB)
	h.settle()
	ppath := filepath.Join(h.fb.dir, "projects", filepath.Base(dir), "memory.json")
	if got := liveTexts(readEntries(t, ppath)); len(got) != 1 {
		t.Fatalf("project memory file holds %q", got)
	}
	if !slices.Contains(h.u.recent, dir) {
		t.Error("the folder is not among the recent projects")
	}
	h.u.pinProject("")
	h.settle()
	if c, _ := h.fb.Chat("chat1"); c.Project != "" || h.u.bar.project.Text != "No project" || !i.noProject.Visible() {
		t.Fatalf("after clearing: project %q, button %q, placeholder %v", c.Project, h.u.bar.project.Text, i.noProject.Visible())
	}
}

func TestSendErrorShowsSettingsAndRetry(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.sendErr = &agent.Error{Code: agent.CodeNoEndpoint, Message: "No model endpoint is configured. Set it in Settings"}
	})
	for _, q := range []string{"hello", "second question"} {
		test.Type(h.u.pane.input, q)
		pressReturn(h.u.pane.input, false)
		h.settle()
	}
	if len(h.u.pane.views) != 4 {
		t.Fatalf("%d messages shown, want two questions and two errors", len(h.u.pane.views))
	}
	view := h.u.pane.views[1] // the first question's error: its Retry asks it again
	if !strings.Contains(shownText(view.root), "No model endpoint is configured") {
		t.Fatalf("the error is not shown: %s", shownText(view.root))
	}
	test.Tap(button(t, view.root, "Open settings"))
	if !h.u.settingsOpen {
		t.Error("Open settings did not open the settings")
	}
	h.fb.mu.Lock()
	h.fb.sendErr = nil
	h.fb.mu.Unlock()
	test.Tap(button(t, view.root, "Retry"))
	h.waitFor("the retried answer", func() bool { return len(h.fb.sentMessages()) == 1 && !h.u.currentSession().busy })
	if got := h.fb.sentMessages(); got[0] != "chat1: hello" {
		t.Fatalf("retry sent %q", got)
	}
}

func TestEscapeStops(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{agent.TurnStarted{ChatID: id, Text: text},
				agent.Delta{ChatID: id, Text: "First paragraph.\n\n"}, agent.Delta{ChatID: id, Text: "partial"}}
		}
	})
	in := h.u.pane.input
	test.Type(in, "write a long essay")
	pressReturn(in, false)
	const partial = "First paragraph.\n\npartial"
	h.waitFor("the partial answer", func() bool {
		a := h.u.currentSession().lastAnswer()
		return a != nil && a.Text == partial
	})
	if !h.u.pane.stopB.Visible() {
		t.Fatal("Stop is not shown while the answer streams")
	}
	view := h.u.pane.views[len(h.u.pane.views)-1]
	if len(view.body.Objects) < 2 {
		t.Fatalf("the streaming answer has %d blocks, want the kept paragraph and the tail", len(view.body.Objects))
	}
	for _, o := range view.body.Objects {
		if o.Size().Width == 0 || o.Size().Height == 0 {
			t.Fatalf("a block of the streaming answer was not laid out: %T %v", o, o.Size())
		}
	}
	in.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.waitFor("the stop", func() bool { return !h.u.currentSession().busy })
	if a := h.u.currentSession().lastAnswer(); !a.Stopped || a.Text != partial {
		t.Fatalf("after Esc: stopped %v, text %q", a.Stopped, a.Text)
	}
}

func TestShortcuts(t *testing.T) {
	h := newHarness(t, nil)
	in := h.u.pane.input
	in.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault})
	if h.w.Canvas().Focused() != h.u.insp.search {
		t.Fatalf("Ctrl+F focused %T, want the memory search", h.w.Canvas().Focused())
	}
	h.u.insp.search.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault})
	h.settle()
	if len(h.u.chats) != 2 || h.u.current != "chat2" {
		t.Fatalf("Ctrl+N: %d chats, current %q", len(h.u.chats), h.u.current)
	}
	if h.w.Canvas().Focused() != in {
		t.Error("a new chat should focus the message box")
	}
}

func TestSettingsDialog(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.cfg.APIKey = "sk-secret-abcd" })
	h.u.openSettings()
	h.settle()
	test.AssertRendersToMarkup(t, "settings.xml", h.w.Canvas())
	f := newSettingsForm(h.u, h.u.cfg, agent.ConfigSources{})
	f.endpoint.SetText("not a url")
	if _, err := f.config(h.u.cfg); err == nil {
		t.Error("an invalid endpoint was accepted")
	}
	f.endpoint.SetText("http://127.0.0.1:11434/v1")
	f.topK.SetText("8")
	c, err := f.config(h.u.cfg)
	if err != nil || c.BaseURL != "http://127.0.0.1:11434/v1" || c.RecallTopK != 8 || c.APIKey != "sk-secret-abcd" {
		t.Fatalf("config = %+v, %v", c, err)
	}
	h.u.saveConfig(c)
	h.settle()
	if got := h.fb.Config(); got.RecallTopK != 8 {
		t.Fatalf("saved top-k %d", got.RecallTopK)
	}
}

// overlayButton taps the button labelled text in the window's top overlay
// (a dialog).
func overlayButton(t *testing.T, h *harness, text string) {
	t.Helper()
	top := h.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog is open to tap %q", text)
	}
	test.Tap(button(t, top, text))
}

func TestRenameAndDeleteChat(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.NewChat()
		fb.NewChat()
	})
	c := h.u.chats[0]
	h.u.list.rename(c)
	entry := objects[*shortcutEntry](h.w.Canvas().Overlays().Top())[0]
	entry.SetText("Deploy fix")
	overlayButton(t, h, "Rename")
	h.settle()
	if got, _ := h.fb.Chat(c.ID); got.Title != "Deploy fix" || chatTitle(h.u.chats[0]) != "Deploy fix" {
		t.Fatalf("after rename: stored %q, shown %q", got.Title, chatTitle(h.u.chats[0]))
	}
	h.u.list.remove(c)
	overlayButton(t, h, "Delete")
	h.settle()
	if _, err := h.fb.Chat(c.ID); err == nil {
		t.Fatal("the chat was not deleted")
	}
	if len(h.u.chats) != 1 || h.u.current != h.u.chats[0].ID || h.u.list.sel != 0 {
		t.Fatalf("after delete: %d chats, current %q, selected row %d", len(h.u.chats), h.u.current, h.u.list.sel)
	}
}

func TestInspectorVirtualisesTenThousand(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		st, err := memory.Open(filepath.Join(fb.dir, "memory.json"), memory.Options{MaxEntries: 20000})
		if err != nil {
			t.Fatal(err)
		}
		fb.stores[st.Path()] = st
		es := make([]memory.Entry, 10000)
		for n := range es {
			es[n] = memory.Entry{Kind: memory.KindFact, Source: memory.SourceImport,
				Text: "memory number " + strconv.Itoa(n) + " about deploy scripts and 部署 " + strconv.Itoa(20000+n*7919%10007)}
		}
		if _, err := st.AddAll(es); err != nil {
			t.Fatal(err)
		}
	})
	i := h.u.insp
	if len(i.rows) != 10000 {
		t.Fatalf("%d rows, want 10000", len(i.rows))
	}
	if n := len(objects[*rowBox](i.list)); n == 0 || n > 100 {
		t.Fatalf("%d row widgets for 10000 memories: the list is not virtualised", n)
	}
	i.list.ScrollToBottom()
	test.Type(i.search, "9999")
	h.settle()
	if len(i.rows) == 0 || !strings.Contains(i.rows[0].e.Text, "number 9999 ") {
		t.Fatalf("search for 9999 ranks %d rows, first %+v", len(i.rows), i.rows)
	}
}

func BenchmarkInspectorQuery(b *testing.B) {
	st := memory.NewInMemory(memory.Options{MaxEntries: 20000})
	es := make([]memory.Entry, 10000)
	for n := range es {
		es[n] = memory.Entry{Kind: memory.KindFact, Source: memory.SourceImport,
			Text: "memory number " + strconv.Itoa(n) + " about deploy scripts and 部署 " + strconv.Itoa(20000+n*7919%10007)}
	}
	if _, err := st.AddAll(es); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"", "deploy 9999", "部署"} {
		b.Run("q="+q, func(b *testing.B) {
			for b.Loop() {
				queryRows(st, q, filter{})
			}
		})
	}
}

func TestInstructionsChangedUpdatesIndicator(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	h.u.pinProject(dir)
	h.settle()
	if got := h.u.bar.agents.Text; got != "AGENTS.md –" {
		t.Fatalf("indicator without AGENTS.md = %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("be brief\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.fb.events <- agent.InstructionsChanged{Path: filepath.Join(dir, "AGENTS.md"), Found: true}
	h.waitFor("the indicator", func() bool { return h.u.bar.agents.Text == "AGENTS.md ✓" })
}

// A memory.json that does not parse is shown in a banner that says where,
// left byte for byte, and fixed by the banner's Repair button.
func TestCorruptStoreShowsBanner(t *testing.T) {
	broken := "{\"version\": 2, \"entries\": [\n  {\"id\": \"keep000001\", \"text\": \"still readable\"},\n  {not json\n"
	var path string
	h := newHarness(t, func(fb *fakeBackend) {
		path = filepath.Join(fb.dir, "memory.json")
		if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	i := h.u.insp
	if !i.bannerBox.Visible() || !strings.Contains(i.banner.Text, "memory.json line 3, column 4") || !i.repair.Visible() {
		t.Fatalf("banner shown %v, repair %v: %q", i.bannerBox.Visible(), i.repair.Visible(), i.banner.Text)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Fatalf("the broken file changed: %q", data)
	}
	test.Tap(i.repair)
	h.waitFor("the repair", func() bool { return !i.bannerBox.Visible() })
	if len(i.rows) != 1 || i.rows[0].e.Text != "still readable" {
		t.Fatalf("rows after the repair: %+v", i.rows)
	}
	backups, _ := filepath.Glob(path + ".broken-*")
	if len(backups) != 1 {
		t.Fatalf("backups of the broken file: %v", backups)
	}
	// The inspector works on the repaired file.
	test.Tap(i.add)
	test.Type(i.ed.text, "still works")
	test.Tap(i.ed.saveB)
	h.settle()
	if len(i.rows) != 2 {
		t.Fatalf("%d rows after adding to the repaired store", len(i.rows))
	}
}

func TestProjectMenuOffersRecentFolders(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, func(fb *fakeBackend) { fb.recent = []string{dir} })
	test.Tap(h.u.bar.project)
	if h.w.Canvas().Overlays().Top() == nil {
		t.Fatal("the project button opened no menu")
	}
	items := h.u.bar.projectItems()
	var recent *fyne.MenuItem
	for _, it := range items {
		if it.Label == shortPath(dir, "") {
			recent = it
		}
		if it.Label == "Clear project" && !it.Disabled {
			t.Error("Clear is enabled with no project pinned")
		}
	}
	if recent == nil {
		t.Fatalf("the menu does not offer the recent folder %s", dir)
	}
	recent.Action()
	h.settle()
	if c, _ := h.fb.Chat(h.u.current); c.Project != dir {
		t.Fatalf("picking the recent folder pinned %q", c.Project)
	}
}

// BenchmarkStreamDelta measures what one redraw of a streaming answer costs
// (the pump allows about 30 a second): applying a merged delta of 16 bytes
// to an answer of 8 to 12 KB in the chat pane, whose blocks before the last
// blank line are kept from the redraws before. When the answer reaches 12
// KB it starts again from 8 KB, with the timer stopped.
func BenchmarkStreamDelta(b *testing.B) {
	h := newHarness(b, nil)
	var sb strings.Builder
	for n := 0; sb.Len() < 12000; n++ {
		sb.WriteString("Paragraph " + strconv.Itoa(n) + " with **bold**, `code` and 中文文本。\n\n")
		if n%5 == 4 {
			sb.WriteString("```go\nfunc main() { println(" + strconv.Itoa(n) + ") }\n```\n\n")
		}
	}
	text := sb.String()
	const size = 16
	start := 8000
	for !utf8.RuneStart(text[start]) {
		start++
	}
	var deltas []string
	for pos := start; pos < len(text); {
		end := min(pos+size, len(text))
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++
		}
		deltas = append(deltas, text[pos:end])
		pos = end
	}
	id := h.u.current
	h.u.applyEvent(agent.TurnStarted{ChatID: id, Text: "Write a long answer.", UserID: "u"})
	m := h.u.currentSession().answer()
	restart := func() {
		m.Text = ""
		h.u.applyEvent(agent.Delta{ChatID: id, Text: text[:start]})
	}
	restart()
	next := 0
	for b.Loop() {
		if next == len(deltas) {
			b.StopTimer()
			restart()
			next = 0
			b.StartTimer()
		}
		h.u.applyEvent(agent.Delta{ChatID: id, Text: deltas[next]})
		next++
	}
	if !strings.HasPrefix(text, m.Text) || len(m.Text) <= start {
		b.Fatalf("the answer is %d bytes, not a longer prefix of the text", len(m.Text))
	}
}

// TestStreamingRedrawLaysOutNewBlocks applies deltas one by one: after the
// first, only the answer's body changes, and its new blocks must still be
// laid out and shown.
func TestStreamingRedrawLaysOutNewBlocks(t *testing.T) {
	h := newHarness(t, nil)
	id := h.u.current
	h.u.applyEvent(agent.TurnStarted{ChatID: id, Text: "q", UserID: "u"})
	h.u.applyEvent(agent.Delta{ChatID: id, Text: "First paragraph."})
	view := h.u.pane.views[len(h.u.pane.views)-1]
	before := view.root.Size().Height
	h.u.applyEvent(agent.Delta{ChatID: id, Text: "\n\nSecond paragraph.\n\n```sh\nmake deploy\n```\n\nThird"})
	if got := len(view.body.Objects); got != 3 {
		t.Fatalf("%d blocks, want 3 (two paragraphs, the code block, the open tail)", got)
	}
	for _, o := range view.body.Objects {
		if o.Size().Width == 0 || o.Size().Height == 0 {
			t.Fatalf("block %T was not laid out: %v", o, o.Size())
		}
	}
	if after := view.root.Size().Height; after <= before {
		t.Fatalf("the answer did not grow: %v → %v", before, after)
	}
	if !strings.Contains(shownText(view.root), "Third") {
		t.Fatal("the last piece is not shown")
	}
}

func TestChatFollowsTheEnd(t *testing.T) {
	h := newHarness(t, nil)
	id := h.u.current
	for n := 0; n < 6; n++ {
		h.u.applyEvent(agent.TurnStarted{ChatID: id, Text: "question " + strconv.Itoa(n), UserID: "u"})
		h.u.applyEvent(agent.Delta{ChatID: id, Text: strings.Repeat("A long line of the answer.\n\n", 8)})
		h.u.applyEvent(agent.TurnDone{ChatID: id})
	}
	sc := h.u.pane.scroll
	if sc.Offset.Y == 0 || !h.u.pane.atBottom() {
		t.Fatalf("offset %v of content %v in view %v: not at the end", sc.Offset.Y, sc.Content.Size().Height, sc.Size().Height)
	}
	sc.ScrollToTop()
	h.u.applyEvent(agent.TurnStarted{ChatID: id, Text: "one more", UserID: "u"})
	if sc.Offset.Y != 0 {
		t.Fatal("a new message moved the view although it was scrolled up to read")
	}
}

// TestEmptyChatShowsPlaceholder switches from a chat with messages to a new
// one: the pane shows its placeholder again.
func TestEmptyChatShowsPlaceholder(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		c, _ := fb.NewChat()
		fb.chats[c.ID].Messages = []Message{{Role: agent.RoleUser, Text: "q"}, {Role: agent.RoleAssistant, Text: "a"}}
	})
	if h.u.pane.empty.Visible() {
		t.Fatal("the placeholder shows over a chat with messages")
	}
	h.u.newChat()
	h.settle()
	if len(h.u.pane.views) != 0 || !h.u.pane.empty.Visible() {
		t.Fatalf("a new chat shows %d messages, placeholder %v", len(h.u.pane.views), h.u.pane.empty.Visible())
	}
}

func TestFirstRunOpensSettingsAndInspectorWorks(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.cfg.BaseURL, fb.cfg.Model = "", "" })
	if !h.u.settingsOpen || h.w.Canvas().Overlays().Top() == nil {
		t.Fatal("the settings did not open on a first run")
	}
	i := h.u.insp
	i.ed.open(nil)
	i.ed.text.SetText("works without an endpoint")
	i.ed.save()
	h.settle()
	if len(i.rows) != 1 {
		t.Fatalf("%d rows after adding a memory with nothing configured", len(i.rows))
	}
}

func TestInspectorCollapses(t *testing.T) {
	h := newHarness(t, nil)
	test.Tap(h.u.bar.memories)
	if h.u.inspectorOpen || h.u.insp.root.Visible() || !h.u.pane.root.Visible() {
		t.Fatal("the Memories button did not hide the inspector")
	}
	h.u.shortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault})
	if !h.u.inspectorOpen || !h.u.insp.root.Visible() || h.w.Canvas().Focused() != h.u.insp.search {
		t.Fatal("Ctrl+F did not bring the inspector back with the search focused")
	}
}

// messageTexts lists a session's messages as "role: text".
func messageTexts(s *session) []string {
	var out []string
	for _, m := range s.msgs {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

// TestSendWhileChatLoads sends a message before the chat's messages have
// loaded: the turn starts only once they have, and each message shows once.
func TestSendWhileChatLoads(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		c, _ := fb.NewChat()
		fb.chats[c.ID].Messages = []Message{{Role: agent.RoleUser, Text: "earlier question"},
			{Role: agent.RoleAssistant, Text: "earlier answer"}}
		fb.NewChat()
	})
	gate := h.fb.holdChatLoads()
	h.u.selectChat("chat1")
	in := h.u.pane.input
	test.Type(in, "new question")
	pressReturn(in, false)
	if !h.u.pane.stopB.Visible() {
		t.Error("Stop is not shown for a message waiting for its chat to load")
	}
	close(gate)
	h.waitFor("the answer", func() bool {
		s := h.u.currentSession()
		return s.loaded && !s.busy && len(s.msgs) > 2
	})
	want := []string{"user: earlier question", "assistant: earlier answer", "user: new question", "assistant: ok"}
	if got := messageTexts(h.u.currentSession()); !slices.Equal(got, want) {
		t.Fatalf("messages %q, want %q", got, want)
	}
	if got := h.fb.callLog(); !slices.Equal(got[len(got)-2:], []string{"chat chat1", "send chat1"}) {
		t.Fatalf("calls %q: the message was sent before the chat loaded", got)
	}
}

// TestEventsBeforeLoadShowOnce applies a turn's events to a chat that was
// never opened and whose messages on disk already hold that turn: opening
// it shows the turn once.
func TestEventsBeforeLoadShowOnce(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		c, _ := fb.NewChat()
		fb.chats[c.ID].Messages = []Message{{Role: agent.RoleUser, Text: "q"}, {Role: agent.RoleAssistant, Text: "a"}}
		fb.NewChat()
	})
	for _, ev := range []agent.Event{agent.TurnStarted{ChatID: "chat1", Text: "q"},
		agent.Delta{ChatID: "chat1", Text: "a"}, agent.TurnDone{ChatID: "chat1"}} {
		h.u.applyEvent(ev)
	}
	h.u.selectChat("chat1")
	h.settle()
	if got, want := messageTexts(h.u.currentSession()), []string{"user: q", "assistant: a"}; !slices.Equal(got, want) {
		t.Fatalf("messages %q, want %q", got, want)
	}
	if n := len(h.u.pane.views); n != 2 {
		t.Fatalf("%d message views, want 2", n)
	}
}

// TestStopWhileChatLoads stops a message still waiting for its chat to
// load: nothing is sent and the text goes back to the message box.
func TestStopWhileChatLoads(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.NewChat()
		fb.NewChat()
	})
	gate := h.fb.holdChatLoads()
	h.u.selectChat("chat1")
	in := h.u.pane.input
	test.Type(in, "never mind")
	pressReturn(in, false)
	in.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	close(gate)
	h.settle()
	if s := h.u.currentSession(); s.busy || !s.loaded || len(h.fb.sentMessages()) != 0 {
		t.Fatalf("after Esc: busy %v, loaded %v, sent %q", s.busy, s.loaded, h.fb.sentMessages())
	}
	if in.Text != "never mind" || !h.u.pane.send.Visible() {
		t.Fatalf("message box %q, Send shown %v", in.Text, h.u.pane.send.Visible())
	}
}

// TestKeyboardReachesDisclosureAndTabs checks the keyboard paths the e2e
// test takes: Shift+Tab from the message box reaches the last answer's
// disclosure, Shift+Tab from the memory search the Project tab, and Space
// presses them.
func TestKeyboardReachesDisclosureAndTabs(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{agent.TurnStarted{ChatID: id, Text: text},
				agent.ToolCall{ChatID: id, CallID: "c1", Name: "memory_search", Args: `{}`},
				agent.ToolResult{ChatID: id, CallID: "c1", Name: "memory_search", Result: "none"},
				agent.Delta{ChatID: id, Text: "Done.\n\n```sh\nls\n```\n"}, agent.TurnDone{ChatID: id}}
		}
	})
	in := h.u.pane.input
	if in.AcceptsTab() {
		t.Fatal("the message box keeps Tab to itself")
	}
	test.Type(in, "q")
	pressReturn(in, false)
	h.waitFor("the answer", func() bool { return !h.u.currentSession().busy })
	c := h.w.Canvas()
	c.FocusPrevious()
	d, ok := c.Focused().(*widget.Button)
	if !ok || d.Text != "No memories recalled · 1 tool call" {
		t.Fatalf("Shift+Tab from the message box focused %T %v", c.Focused(), c.Focused())
	}
	d.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	if a := h.u.currentSession().lastAnswer(); !a.open {
		t.Fatal("Space did not open the disclosure")
	}
	c.FocusNext()
	if c.Focused() != in {
		t.Fatalf("Tab from the disclosure focused %T, want the message box", c.Focused())
	}

	h.u.pinProject(t.TempDir())
	h.settle()
	h.u.insp.setScope(agent.ScopeGlobal)
	h.settle()
	h.u.insp.focusSearch()
	c.FocusPrevious()
	if c.Focused() != h.u.insp.proj {
		t.Fatalf("Shift+Tab from the search focused %T, want the Project tab", c.Focused())
	}
	h.u.insp.proj.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	h.settle()
	if h.u.insp.scope != agent.ScopeProject {
		t.Fatal("Space on the Project tab did not show the project's memories")
	}
}

// TestHighlightInBothTabs recalls a global and a project memory for one
// answer: each tab highlights its own.
func TestHighlightInBothTabs(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	h.u.pinProject(dir)
	h.settle()
	gs, _ := h.fb.store(agent.ScopeGlobal, "")
	ps, _ := h.fb.store(agent.ScopeProject, dir)
	g, _, _ := gs.Add(memory.Entry{Kind: memory.KindFact, Text: "a global fact", Source: memory.SourceUser})
	p, _, _ := ps.Add(memory.Entry{Kind: memory.KindFact, Text: "a project fact", Source: memory.SourceUser})
	id := h.u.current
	h.u.applyEvent(agent.TurnStarted{ChatID: id, Text: "q", UserID: "u"})
	h.u.applyEvent(agent.RecallDone{ChatID: id, Hits: []agent.RecalledHit{
		{Hit: memory.Hit{Entry: g, Score: 1}, Scope: agent.ScopeGlobal},
		{Hit: memory.Hit{Entry: p, Score: 2}, Scope: agent.ScopeProject}}})
	h.u.applyEvent(agent.TurnDone{ChatID: id})
	for _, tab := range []agent.Scope{agent.ScopeProject, agent.ScopeGlobal} {
		h.u.insp.setScope(tab)
		h.settle()
		if got := shownText(h.u.insp.list); !strings.Contains(got, "recalled for this answer") {
			t.Errorf("the %s tab highlights nothing:\n%s", tab, got)
		}
	}
}

func TestShortPath(t *testing.T) {
	t.Parallel() // shares nothing: no app, no globals
	for _, c := range []struct{ dir, home, want string }{
		{"/home/ann/code/bluebird", "/home/ann", "~/code/bluebird"},
		{"/home/ann", "/home/ann", "~"},
		{"/home/anna/x", "/home/ann", "/home/anna/x"},
		{"/srv/x", "", "/srv/x"},
		{"/srv/x", "/", "/srv/x"},
	} {
		if got := shortPath(c.dir, c.home); got != c.want {
			t.Errorf("shortPath(%q, %q) = %q, want %q", c.dir, c.home, got, c.want)
		}
	}
}

// TestChatLoadFailsWithMessageWaiting: when the chat cannot load, the
// message waiting for it goes back to the message box and the error shows.
func TestChatLoadFailsWithMessageWaiting(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.NewChat()
		fb.NewChat()
	})
	gate := h.fb.holdChatLoads()
	h.u.selectChat("chat1")
	in := h.u.pane.input
	test.Type(in, "hello")
	pressReturn(in, false)
	if err := h.fb.DeleteChat("chat1"); err != nil { // removed elsewhere meanwhile
		t.Fatal(err)
	}
	close(gate)
	h.settle()
	if s := h.u.currentSession(); s.busy || s.queued != "" || in.Text != "hello" || !h.u.pane.send.Visible() {
		t.Fatalf("busy %v, queued %q, message box %q", s.busy, s.queued, in.Text)
	}
	if h.w.Canvas().Overlays().Top() == nil {
		t.Error("no error was shown")
	}
	if got := h.fb.sentMessages(); len(got) != 0 {
		t.Errorf("sent %q", got)
	}
}
