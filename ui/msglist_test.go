package ui

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"engram/agent"
)

// longChat fills chat1 of fb with n messages of mixed Markdown.
func longChat(fb *fakeBackend, n int) {
	c, _ := fb.NewChat()
	fb.with(c.ID, func(c *Chat) {
		for i := range n {
			m := Message{ID: "l" + strconv.Itoa(i), Role: agent.RoleUser, Text: "Question " + strconv.Itoa(i) +
				": how do I deploy?\nSecond line."}
			if i%2 == 1 {
				m.Role = agent.RoleAssistant
				m.Text = longAnswer(i)
			}
			c.Messages = append(c.Messages, m)
		}
	})
}

// longAnswer is an answer with a heading, a list, a table, code and
// Chinese text.
func longAnswer(i int) string {
	n := strconv.Itoa(i)
	return "## Answer " + n + "\n\nRun the **deploy** script with `DRY_RUN=1` first, then check the logs.\n\n" +
		"1. Build\n2. Copy to the server\n   - use scp\n3. Restart\n\n" +
		"| Step | 说明 |\n|---|---|\n| build | 构建项目 |\n| deploy | 部署到服务器 |\n\n" +
		"```go\nfunc main() {\n\tfmt.Println(" + n + ")\n}\n```\n\n部署脚本默认先 dry-run，再上生产环境。"
}

// built counts the messages of s whose view was built.
func built(s *session) int {
	n := 0
	for _, m := range s.msgs {
		if m.view != nil {
			n++
		}
	}
	return n
}

func TestLongChatBuildsOnlyWhatIsInView(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { longChat(fb, 2000) })
	s := h.u.currentSession()
	if len(s.msgs) != 2000 {
		t.Fatalf("%d messages loaded", len(s.msgs))
	}
	if n := built(s); n == 0 || n > 30 {
		t.Fatalf("%d of 2000 messages were built on opening", n)
	}
	if s.msgs[1999].view == nil || !h.u.pane.atBottom() {
		t.Fatal("the chat did not open at its last message")
	}
	if !strings.Contains(shownText(h.u.pane.msgs), "Answer 1999") {
		t.Fatal("the last answer is not shown")
	}
	h.u.pane.scrollTo(0)
	if s.msgs[0].view == nil || !strings.Contains(shownText(h.u.pane.msgs), "Question 0:") {
		t.Fatal("scrolling to the top did not show the first message")
	}
	if n := built(s); n > 60 {
		t.Errorf("%d messages built after scrolling to the top", n)
	}
	first := s.msgs[1].view
	h.u.selectChat("chat1")
	h.u.pane.scrollTo(0)
	if s.msgs[1].view != first {
		t.Error("the message's view (and its parsed Markdown) was built again")
	}
}

// BenchmarkOpenLongChat opens a chat of 2,000 messages of mixed Markdown
// (never shown before: no view is cached) in a 1200×760 window and lays it
// out at its end, as selecting a loaded chat does.
func BenchmarkOpenLongChat(b *testing.B) {
	h := newHarness(b, func(fb *fakeBackend) { longChat(fb, 2000) })
	s := h.u.currentSession()
	for b.Loop() {
		b.StopTimer()
		for _, m := range s.msgs {
			m.view = nil
		}
		h.u.pane.show(&session{})
		b.StartTimer()
		h.u.pane.show(s)
	}
	if s.msgs[1999].view == nil {
		b.Fatal("the last message was not built")
	}
}

// BenchmarkScrollLongChat scrolls a chat of 2,000 messages from the end to
// the top in wheel steps of 120 px, building the messages that come into
// view. Per step of the UI goroutine's work (the layout of a frame; the
// headless driver draws nothing) it reports the slowest and the median,
// by the wall clock (max-step-ms, p50-step-ms) and by the CPU time of the
// thread (max-step-cpu-ms, on Linux), which other load on the machine does
// not inflate.
func BenchmarkScrollLongChat(b *testing.B) {
	h := newHarness(b, func(fb *fakeBackend) { longChat(fb, 2000) })
	s, p := h.u.currentSession(), h.u.pane
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var steps, cpu []time.Duration
	for b.Loop() {
		b.StopTimer()
		for _, m := range s.msgs {
			m.view = nil
		}
		p.show(&session{})
		p.show(s)
		b.StartTimer()
		for p.scroll.Offset.Y > 0 {
			t0, c0 := time.Now(), threadCPU()
			p.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 120}})
			steps, cpu = append(steps, time.Since(t0)), append(cpu, threadCPU()-c0)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	slices.Sort(steps)
	slices.Sort(cpu)
	b.ReportMetric(ms(steps[len(steps)-1]), "max-step-ms")
	b.ReportMetric(ms(steps[len(steps)/2]), "p50-step-ms")
	b.ReportMetric(ms(cpu[len(cpu)-1]), "max-step-cpu-ms")
	b.ReportMetric(float64(len(steps))/float64(b.N), "steps/op")
}
