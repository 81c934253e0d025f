package memory_test

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"engram/memory"
)

func TestStoreEvictionOrder(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{MaxEntries: 6, Now: clk.Now})
	add := func(kind memory.Kind, text string, pinned bool) memory.Entry {
		clk.Advance(time.Minute)
		return mustAdd(t, s, memory.Entry{Kind: kind, Text: text, Pinned: pinned, Source: memory.SourceAuto})
	}
	oldPref := add(memory.KindPreference, "oldest preference of all", false)
	pinnedFact := add(memory.KindFact, "pinned fact, oldest fact", true)
	factA := add(memory.KindFact, "fact alpha about the build", false)
	factB := add(memory.KindFact, "fact beta about the deploy", false)
	lesson := add(memory.KindLesson, "lesson about flaky tests", false)
	corr := add(memory.KindCorrection, "correction about naming", false)
	// factA is older, but was used recently: factB is now the least recent fact.
	clk.Advance(time.Minute)
	if err := s.MarkUsed(factA.ID); err != nil {
		t.Fatal(err)
	}

	step := func(newKind memory.Kind, text string, wantGone memory.Entry) {
		t.Helper()
		clk.Advance(time.Minute)
		mustAdd(t, s, memory.Entry{Kind: newKind, Text: text, Source: memory.SourceAuto})
		e, _ := s.Get(wantGone.ID)
		if e.Deleted.IsZero() {
			t.Fatalf("after adding %q, %q was not evicted; live: %q", text, wantGone.Text, entryTexts(s.List()))
		}
		if s.Len() != 6 {
			t.Fatalf("store has %d live entries, cap 6", s.Len())
		}
	}
	step(memory.KindPreference, "new preference one", factB) // weakest kind, least recent
	step(memory.KindPreference, "new preference two", factA) // the other unpinned fact
	step(memory.KindPreference, "new preference three", lesson)
	step(memory.KindPreference, "new preference four", corr)
	step(memory.KindPreference, "new preference five", oldPref) // oldest preference
	if e, _ := s.Get(pinnedFact.ID); !e.Live() {
		t.Fatal("a pinned entry was evicted")
	}
	// Evictions are tombstones and can be restored (which evicts again).
	if err := s.Restore(corr.ID); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Get(corr.ID); !e.Live() || s.Len() != 6 {
		t.Fatalf("restore: %+v, len %d", e, s.Len())
	}
	if live := entryTexts(s.List()); slices.Contains(live, "new preference one") || !slices.Contains(live, "new preference two") {
		t.Errorf("restore evicted another than the least recent preference; live: %q", live)
	}
}

func TestStoreEvictsHistoryFirst(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{MaxEntries: 3, Now: clk.Now})
	auto := memory.SourceAuto
	fact := mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "the build server is called hal", Source: auto})
	clk.Advance(time.Minute)
	if _, err := s.Supersede(fact.ID, memory.Entry{Text: "the build server is called deepthought", Source: auto}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	pref := mustAdd(t, s, memory.Entry{Kind: memory.KindPreference, Text: "answers in French", Source: auto})
	clk.Advance(time.Minute)
	mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "the office moved to Lyon", Source: auto})
	if e, _ := s.Get(fact.ID); e.Deleted.IsZero() {
		t.Errorf("the replaced fact was kept over current entries: %+v", e)
	}
	if e, _ := s.Get(pref.ID); !e.Live() || s.Len() != 3 {
		t.Errorf("a current entry was evicted while history was left: live %q", entryTexts(s.List()))
	}
}

func TestStorePinnedNeverEvicted(t *testing.T) {
	t.Parallel()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{MaxEntries: 3})
	var pinned []memory.Entry
	for _, txt := range []string{"pinned one is a fact", "pinned two is a fact", "pinned three is a fact"} {
		pinned = append(pinned, mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: txt, Pinned: true}))
	}
	_, _, err := s.Add(memory.Entry{Kind: memory.KindPreference, Text: "a preference that does not fit"})
	if !errors.Is(err, memory.ErrFull) {
		t.Fatalf("Add to a store full of pinned entries: %v, want ErrFull", err)
	}
	for _, p := range pinned {
		if e, _ := s.Get(p.ID); !e.Live() {
			t.Errorf("pinned %q lost", p.Text)
		}
	}
	if s.Len() != 3 {
		t.Errorf("len %d", s.Len())
	}
}
