package chat

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

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
