package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/memory"
)

// localized matches the strings the code hands to the translation: lang.L
// and lang.N literals, and count's.
var localized = regexp.MustCompile(`\b(lang\.L|lang\.N|count)\(\s*("(?:[^"\\]|\\.)*")`)

// templateFields matches the {{.Field}}s of a string.
var templateFields = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

// sourceStrings returns the translated strings of the package's sources
// and of its internal packages (whose strings it translates), each with
// whether it has plural forms, and the wordings of the agent's errors and
// notices (which sayWords translates).
func sourceStrings(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	inner, err := filepath.Glob(filepath.Join("internal", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, inner...)
	out := map[string]bool{}
	for _, k := range agent.Keys() {
		out[agent.Wording(k)] = false
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range localized.FindAllStringSubmatch(string(src), -1) {
			s, err := strconv.Unquote(m[2])
			if err != nil {
				t.Fatalf("%s: %s: %v", f, m[2], err)
			}
			out[s] = out[s] || m[1] != "lang.L"
		}
	}
	return out
}

func readTranslation(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := translations.ReadFile("translations/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func fieldsOf(s string) []string {
	var out []string
	for _, m := range templateFields.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestTranslationsComplete fails when a string the code shows (the agent's
// error and notice wordings among them) is missing from a translation, when a translation holds a string the code no longer
// uses, or when a translation drops or invents a {{.Field}}.
func TestTranslationsComplete(t *testing.T) {
	t.Parallel() // shares nothing: no app, no globals
	used := sourceStrings(t)
	if len(used) < 100 {
		t.Fatalf("only %d translated strings found in the sources: the scan is broken", len(used))
	}
	forms := map[string][]string{"en.json": {"one", "other"}, "zh-Hans.json": {"other"}}
	for name, want := range forms {
		tr := readTranslation(t, name)
		for s, plural := range used {
			v, ok := tr[s]
			if !ok {
				t.Errorf("%s is missing %q", name, s)
				continue
			}
			var texts []string
			switch v := v.(type) {
			case string:
				if plural {
					t.Errorf("%s: %q is counted but has no plural forms", name, s)
				}
				texts = []string{v}
			case map[string]any:
				for _, f := range want {
					text, ok := v[f].(string)
					if !ok {
						t.Errorf("%s: %q has no %q form", name, s, f)
					}
					texts = append(texts, text)
				}
			}
			for _, text := range texts {
				if text == "" {
					t.Errorf("%s: %q is translated as nothing", name, s)
				}
				if !slices.Equal(fieldsOf(text), fieldsOf(s)) {
					t.Errorf("%s: %q has the fields %v, the code gives %v", name, text, fieldsOf(text), fieldsOf(s))
				}
			}
		}
		for s := range tr {
			if _, ok := used[s]; !ok {
				t.Errorf("%s holds %q, which the code does not use", name, s)
			}
		}
	}
}

// inChinese runs the rest of the test with the system locale set to
// Simplified Chinese, as LANG=zh_CN.UTF-8 does, and English after it.
func inChinese(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { // runs after the environment is restored
		if err := SetupLanguage(LanguageEnglish); err != nil {
			t.Error(err)
		}
		if err := SetupLanguage(LanguageSystem); err != nil {
			t.Error(err)
		}
	})
	for _, v := range []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES"} {
		t.Setenv(v, "")
	}
	t.Setenv("LANG", "zh_CN.UTF-8")
	if err := SetupLanguage(LanguageEnglish); err != nil { // another choice, so the next one applies
		t.Fatal(err)
	}
	t.Setenv("LANGUAGE", "")
	t.Setenv("LC_MESSAGES", "")
	if err := SetupLanguage(LanguageSystem); err != nil {
		t.Fatal(err)
	}
}

func TestLanguageFollowsLocaleAndSetting(t *testing.T) {
	inChinese(t)
	if got := lang.L("Settings"); got != "设置" {
		t.Fatalf("with LANG=zh_CN Settings reads %q", got)
	}
	if got := count("{{.Count}} model available at this endpoint.", 1); got != "此端点有 1 个模型可用。" {
		t.Errorf("zh count: %q", got)
	}
	if got := kindName(memory.KindPreference); got != "偏好" {
		t.Errorf("zh kind: %q", got)
	}
	// The setting overrides the system's locale.
	if err := SetupLanguage(LanguageEnglish); err != nil {
		t.Fatal(err)
	}
	if got := lang.L("Settings"); got != "Settings" {
		t.Fatalf("with English chosen Settings reads %q", got)
	}
	for n, want := range map[int]string{1: "1 model available at this endpoint.", 2: "2 models available at this endpoint.",
		0: "0 models available at this endpoint."} {
		if got := count("{{.Count}} model available at this endpoint.", n); got != want {
			t.Errorf("en count %d: %q, want %q", n, got, want)
		}
	}
	t.Setenv("LANG", "en_US.UTF-8")
	if err := SetupLanguage(LanguageChinese); err != nil {
		t.Fatal(err)
	}
	if got := lang.L("Memories"); got != "记忆" {
		t.Fatalf("with 简体中文 chosen on an English system Memories reads %q", got)
	}
}

func TestInspectorAndSettingsInChinese(t *testing.T) {
	inChinese(t)
	h := newHarness(t, func(fb *fakeBackend) {
		fb.cfg.APIKey = "sk-secret-abcd"
		addMemories(t, fb,
			memory.Entry{Kind: memory.KindPreference, Text: "回答使用中文", Pinned: true},
			memory.Entry{Kind: memory.KindFact, Text: "部署脚本在 scripts/deploy.sh", Source: memory.SourceAuto})
	})
	// As test.AssertObjectRendersToMarkup, with the next frame's layout
	// once the filter chips wrapped at the column's width (the test canvas
	// has no frames).
	c := test.NewCanvas()
	c.SetPadded(false)
	size := h.u.insp.root.MinSize().Max(h.u.insp.root.Size())
	c.SetContent(h.u.insp.root)
	c.Resize(size)
	h.u.insp.body.Refresh()
	test.AssertRendersToMarkup(t, "inspector_zh.xml", c)
	f := newSettingsForm(h.u, h.u.cfg, h.fb.ConfigSources())
	f.status.SetText(count("{{.Count}} model available at this endpoint.", 2))
	w := test.NewWindow(widget.NewForm(f.items()...))
	defer w.Close()
	w.Resize(w.Content().MinSize().Max(fyne.NewSize(600, 0)))
	test.AssertRendersToMarkup(t, "settings_zh.xml", w.Canvas())
}
