//go:build unix

package ui

import (
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"engram/memory"
)

// BenchmarkInspectorTypeToResults measures what one keystroke in the
// inspector's search costs at 10,000 memories, from the search box's
// change to the rows shown: the search off the UI goroutine (the word
// being typed completed in the prefix dictionary, ranked, filtered,
// sorted) and the list redrawn with the result. Each iteration types the
// next character of one of a few queries, as a person does.
func BenchmarkInspectorTypeToResults(b *testing.B) {
	h := newHarness(b, func(fb *fakeBackend) {
		st, err := memory.Open(filepath.Join(fb.dir, "memory.json"), memory.Options{MaxEntries: 20000})
		if err != nil {
			b.Fatal(err)
		}
		fb.stores[st.Path()] = st
		es := make([]memory.Entry, 10000)
		for n := range es {
			es[n] = memory.Entry{Kind: memory.Kinds[n%4], Source: memory.SourceImport,
				Text: "memory number " + strconv.Itoa(n) + " about deploy scripts, rsync backups and 部署 " +
					strconv.Itoa(20000+n*7919%10007)}
		}
		if _, err := st.AddAll(es); err != nil {
			b.Fatal(err)
		}
	})
	i := h.u.insp
	var typed []string
	for _, q := range []string{"rsyn", "deploy scr", "部署脚本", "number 99", "back"} {
		rs := []rune(q)
		for k := 1; k <= len(rs); k++ {
			typed = append(typed, string(rs[:k]))
		}
	}
	i.search.SetText("warm up the index")
	h.settle()
	n := 0
	cpu := cpuTime()
	for b.Loop() {
		i.search.SetText(typed[n%len(typed)])
		h.settle()
		n++
	}
	// On a shared machine the wall time above includes waiting for a core;
	// the process's CPU time per keystroke is the cost without the wait.
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(n), "cpu-ms/op")
	if len(i.rows) == 0 && i.search.Text != "" {
		b.Fatalf("no rows for %q", i.search.Text)
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
