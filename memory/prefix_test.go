package memory_test

import (
	"slices"
	"strconv"
	"testing"

	"engram/memory"
)

func TestStoreComplete(t *testing.T) {
	t.Parallel()
	st := memory.NewInMemory(memory.Options{})
	a := mustAdd(t, st, memory.Entry{Kind: memory.KindFact, Text: "Back up with rsync to the NAS", Source: memory.SourceUser})
	mustAdd(t, st, memory.Entry{Kind: memory.KindFact, Text: "rsync needs --delete for mirrors; rsyncd runs on the NAS", Source: memory.SourceUser})
	mustAdd(t, st, memory.Entry{Kind: memory.KindFact, Text: "部署 uses Rsync too", Source: memory.SourceUser})

	if got := st.Complete("RSY", 5); !slices.Equal(got, []string{"rsync", "rsyncd"}) {
		t.Fatalf("Complete(RSY) = %q, want rsync (3 entries) then rsyncd", got)
	}
	if got := st.Complete("the", 5); len(got) != 0 {
		t.Errorf("a stopword is completed: %q", got)
	}
	if got := st.Complete("部", 5); len(got) != 0 {
		t.Errorf("Chinese is completed: %q", got)
	}
	// The dictionary follows edits and deletions.
	text := "Back up with restic now"
	if _, err := st.Update(a.ID, memory.Change{Text: &text}); err != nil {
		t.Fatal(err)
	}
	if got := st.Complete("res", 5); !slices.Equal(got, []string{"restic"}) {
		t.Fatalf("after the edit Complete(res) = %q", got)
	}
	if got := st.Complete("back", 5); !slices.Equal(got, []string{"back"}) {
		t.Fatalf("Complete(back) = %q", got)
	}
	if err := st.Remove(a.ID); err != nil {
		t.Fatal(err)
	}
	if got := st.Complete("res", 5); len(got) != 0 {
		t.Fatalf("a deleted entry's word is still completed: %q", got)
	}
	if got := st.Complete("rsync", 1); !slices.Equal(got, []string{"rsync"}) {
		t.Fatalf("Complete(rsync, 1) = %q", got)
	}
}

func TestIndexCompleteBulk(t *testing.T) {
	t.Parallel()
	es := make([]memory.Entry, 300)
	for n := range es {
		es[n] = memory.Entry{ID: "m" + strconv.Itoa(n), Kind: memory.KindFact, Text: "deploy host" + strconv.Itoa(n)}
	}
	ix := memory.NewEntryIndex()
	ix.PutAll(es)
	got := ix.Complete("host1", 3)
	if !slices.Equal(got, []string{"host1", "host10", "host11"}) {
		t.Fatalf("Complete(host1) = %q", got)
	}
	ix.Delete("m1")
	if got := ix.Complete("host1", 1); !slices.Equal(got, []string{"host10"}) {
		t.Fatalf("after deleting m1 Complete(host1, 1) = %q", got)
	}
}

func BenchmarkComplete10k(b *testing.B) {
	st := memory.NewInMemory(memory.Options{MaxEntries: 20000})
	es := make([]memory.Entry, 10000)
	for n := range es {
		es[n] = memory.Entry{Kind: memory.KindFact, Source: memory.SourceImport,
			Text: "memory number " + strconv.Itoa(n) + " about deploy scripts and rsync host" + strconv.Itoa(n*7919%10007)}
	}
	if _, err := st.AddAll(es); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		st.Complete("ho", 8)
	}
}
