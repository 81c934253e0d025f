package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTitleFrom(t *testing.T) {
	tests := map[string]string{
		"Hello":                          "Hello",
		"  first line\nsecond line":      "first line",
		"tabs\tand   spaces":             "tabs and spaces",
		"":                               "New chat",
		strings.Repeat("word ", 30):      strings.TrimSpace(strings.Repeat("word ", 12)) + "…",
		strings.Repeat("ü", 100):         strings.Repeat("ü", 60) + "…",
		"What is the capital of France?": "What is the capital of France?",
	}
	for in, want := range tests {
		if got := TitleFrom(in); got != want {
			t.Errorf("TitleFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStoreSkipsBadFiles(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	cs, err := Load(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cs.Create(true, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"id":"mismatch"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := Load(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	if l := again.List(); len(l) != 1 || l[0].ID != info.ID || !l[0].AutoRecall {
		t.Errorf("list = %+v", l)
	}
	if len(again.LoadErrors()) != 2 {
		t.Errorf("errs = %v", again.LoadErrors())
	}
	if !validID(info.ID) || validID("../x") || validID("") {
		t.Error("validID")
	}
}
