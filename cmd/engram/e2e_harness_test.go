//go:build e2e

// The harness of the end-to-end scenarios: a virtual display, the built
// app, the project's fake endpoint, and sessions of the app with their own
// XDG folders, driven with xdotool and read back from their files on disk.
//
// A scenario is a TestE2E… function (make e2e runs them all): newE2E, the
// endpoint's answers (e.srv.Respond = byQuestion(…), or e.srv.Push), a
// session opened with the config, memories and environment it needs
// (setup: pinned memories are Entry{Pinned: true}; Env: []string{"LANG=…"}
// or a FONTCONFIG_FILE), then send, waitAnswer or e.request, shot, and
// checks on s.chats() and e.srv.Requests(). TestE2EReasoning is a short
// example.

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// e2e is what the sessions of one scenario share: the built app, the
// folder of the screenshots, a virtual display and a fake endpoint.
type e2e struct {
	t       *testing.T
	bin     string // build/engram
	out     string // build/e2e, where screenshots go
	display string
	srv     *agenttest.Server
}

// newE2E checks that build/engram exists, starts Xvfb and a fake endpoint
// (echoing until the scenario sets srv.Respond or pushes replies), and
// makes build/e2e.
func newE2E(t *testing.T) *e2e {
	t.Helper()
	root := repoRoot(t)
	e := &e2e{t: t, bin: filepath.Join(root, "build", "engram"), out: filepath.Join(root, "build", "e2e")}
	if !fileExists(e.bin) {
		t.Fatalf("%s is missing: run make build", e.bin)
	}
	if err := os.MkdirAll(e.out, 0o755); err != nil {
		t.Fatal(err)
	}
	e.display = xvfb(t)
	e.srv = agenttest.NewServer()
	t.Cleanup(e.srv.Close)
	return e
}

// config is a config for the fake endpoint with recall and distillation
// on, the app's usual settings.
func (e *e2e) config() *agent.Config {
	return &agent.Config{BaseURL: e.srv.BaseURL(), Model: "fake-model", AutoRecall: true, Distill: true}
}

// setup is how a session starts out.
type setup struct {
	// Config is written to the config file before the start; nil writes
	// none (the first run).
	Config *agent.Config
	// Memories are added to the global memory before the start, as the
	// user's own.
	Memories []memory.Entry
	// Env adds to or overrides the app's environment, as "KEY=value"
	// (e.g. "LANG=zh_CN.UTF-8", or a FONTCONFIG_FILE that hides fonts).
	Env []string
	// Dir is the session's XDG folder; "" makes a fresh one. Sessions
	// given one folder share their config, data and cache.
	Dir string
	// Wrap is a command that runs the app, given the app's path as its
	// last argument (e.g. unshare, to hide the fonts); nil runs it directly.
	Wrap []string
}

// session prepares one run of the app with its own XDG folders, its
// memories and config written, without starting it.
func (e *e2e) session(su setup) *session {
	e.t.Helper()
	dir := su.Dir
	if dir == "" {
		dir = e.t.TempDir()
	}
	s := &session{t: e.t, e: e, xdg: dir, extraEnv: su.Env, wrap: su.Wrap}
	for _, d := range []string{"config", "data", "cache", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			e.t.Fatal(err)
		}
	}
	p := s.paths()
	if len(su.Memories) > 0 {
		addMemories(e.t, p.GlobalMemory(), su.Memories)
	}
	if su.Config != nil {
		if err := agent.SaveConfig(p.ConfigFile(), *su.Config); err != nil {
			e.t.Fatal(err)
		}
	}
	return s
}

// open prepares a session, starts the app and lets its first frame and
// chat list settle; the message box has the focus.
func (e *e2e) open(su setup) *session {
	e.t.Helper()
	s := e.session(su)
	s.start()
	s.settle()
	return s
}

// session is one run of the app.
type session struct {
	t        *testing.T
	e        *e2e
	xdg      string
	extraEnv []string
	wrap     []string // see setup.Wrap
	cmd      *exec.Cmd
	exited   chan struct{} // closed when cmd has ended
	out      bytes.Buffer
}

func (s *session) paths() agent.Paths {
	return agent.DefaultPaths(filepath.Join(s.xdg, "config"), filepath.Join(s.xdg, "data"), filepath.Join(s.xdg, "state"))
}

// home is the session's home folder.
func (s *session) home() string { return filepath.Join(s.xdg, "home") }

// env is the app's environment: the session's display and XDG folders,
// LANG=C.UTF-8 and the PATH, with the setup's Env on top.
func (s *session) env() []string {
	env := []string{"DISPLAY=" + s.e.display, "HOME=" + s.home(),
		"XDG_CONFIG_HOME=" + filepath.Join(s.xdg, "config"), "XDG_DATA_HOME=" + filepath.Join(s.xdg, "data"),
		"XDG_STATE_HOME=" + filepath.Join(s.xdg, "state"), "XDG_CACHE_HOME=" + filepath.Join(s.xdg, "cache"), "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	for _, kv := range s.extraEnv {
		key, _, _ := strings.Cut(kv, "=")
		env = append(slices.DeleteFunc(env, func(old string) bool { return strings.HasPrefix(old, key+"=") }), kv)
	}
	return env
}

// start runs build/engram and returns, when its window is mapped and
// drawn, the time since the exec. If the test fails, the app's output is
// logged.
func (s *session) start() time.Duration {
	s.t.Helper()
	s.cmd = exec.Command(s.e.bin)
	if len(s.wrap) > 0 {
		s.cmd = exec.Command(s.wrap[0], append(s.wrap[1:], s.e.bin)...)
	}
	s.cmd.Env = s.env()
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	begin := time.Now()
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", s.e.bin, err)
	}
	s.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) {
		cmd.Wait()
		close(exited)
	}(s.cmd, s.exited)
	s.t.Cleanup(func() {
		s.stop()
		if s.t.Failed() && s.out.Len() > 0 {
			s.t.Logf("app output:\n%s", s.out.String())
		}
	})
	deadline := begin.Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			s.t.Fatalf("the app exited on %s before it drew a window: %v", s.e.display, s.cmd.ProcessState)
		default:
		}
		if w := s.window(); w != "" && s.drawn(w) {
			return time.Since(begin)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("no Engram window drawn on %s after 20s", s.e.display)
	return 0
}

// settle waits for the first frame and the chat list to settle.
func (s *session) settle() { time.Sleep(500 * time.Millisecond) }

// window is the ID of the visible Engram window, or "".
func (s *session) window() string {
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Engram$")
	cmd.Env = s.env()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// drawn reports whether window id shows more than a blank background: a
// frame with text and icons has many colours.
func (s *session) drawn(id string) bool {
	cmd := exec.Command("import", "-window", id, "png:-")
	cmd.Env = s.env()
	out, err := cmd.Output()
	if err != nil {
		return false
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		return false
	}
	colors := map[color.Color]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			colors[img.At(x, y)] = true
			if len(colors) > 16 {
				return true
			}
		}
	}
	return false
}

// stop ends the app with an interrupt, or kills it after 5 s.
func (s *session) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// xdo runs xdotool on the session's display. It reads its arguments as
// UTF-8 whatever the app's locale (a zh_CN.UTF-8 that is not installed
// would leave it in the C locale, refusing Chinese).
func (s *session) xdo(args ...string) {
	s.t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(s.env(), "LC_ALL=C.UTF-8")
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
}

// focusMessageBox clicks into the message box at the bottom of the chat.
func (s *session) focusMessageBox() {
	s.t.Helper()
	s.xdo("mousemove", "--window", s.window(), "500", "750", "click", "1")
}

// typeText types text into the focused widget. xdotool types a character
// that has no key on the keyboard (Chinese, say) by binding it to a spare
// key for the time of its delay and unbinding it after; an app that reads
// the key later than that, on a busy machine, gets nothing. So such
// characters are typed slowly, and the rest in quick runs.
func (s *session) typeText(text string) {
	s.t.Helper()
	for text != "" {
		wide := text[0] >= utf8.RuneSelf
		n := strings.IndexFunc(text, func(r rune) bool { return (r >= utf8.RuneSelf) != wide })
		if n < 0 {
			n = len(text)
		}
		delay := "40"
		if wide {
			delay = "400"
		}
		s.xdo("type", "--delay", delay, text[:n])
		text = text[n:]
	}
}

// send types text into the message box, which has the focus, and presses
// Return.
func (s *session) send(text string) {
	s.t.Helper()
	s.typeText(text)
	s.xdo("key", "Return")
}

// shot saves a screenshot of the display as build/e2e/name.png and logs
// its path.
func (s *session) shot(name string) string {
	s.t.Helper()
	path := filepath.Join(s.e.out, name+".png")
	cmd := exec.Command("import", "-window", "root", path)
	cmd.Env = s.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("screenshot: %v: %s", err, out)
	}
	s.t.Logf("screenshot %s", path)
	return path
}

// chats reads the session's chat files from disk.
func (s *session) chats() []agent.Chat {
	s.t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.paths().ChatsDir(), "*.json"))
	var out []agent.Chat
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // replaced under us: read it next time
		}
		var c agent.Chat
		if err := json.Unmarshal(b, &c); err != nil {
			s.t.Fatalf("chat file %s does not parse: %v", f, err)
		}
		out = append(out, c)
	}
	return out
}

// waitAnswer waits up to d for the answer to the user message question to
// be saved, and returns it; an answer saved with an error fails the test.
func (s *session) waitAnswer(d time.Duration, question string) agent.Message {
	s.t.Helper()
	var answer agent.Message
	waitFor(s.t, d, fmt.Sprintf("the answer to %q in the chat file", question), func() bool {
		for _, c := range s.chats() {
			if m, ok := answerTo(c, question); ok {
				answer = m
				return true
			}
		}
		return false
	})
	if answer.Err != "" {
		s.t.Fatalf("the answer to %q failed: %s", question, answer.Err)
	}
	return answer
}

// answerTo is the saved answer to the user message question in c.
func answerTo(c agent.Chat, question string) (agent.Message, bool) {
	var id string
	for _, m := range c.Messages {
		if m.Role == agent.RoleUser && m.Text == question {
			id = m.ID
		}
		if id != "" && m.Role == agent.RoleAssistant && m.ReplyTo == id {
			return m, true
		}
	}
	return agent.Message{}, false
}

// request waits up to d for the endpoint's chat request whose last user
// message is question (the first one, not distillation's) and returns it.
func (e *e2e) request(d time.Duration, question string) agenttest.Request {
	e.t.Helper()
	var req agenttest.Request
	waitFor(e.t, d, fmt.Sprintf("the request asking %q", question), func() bool {
		for _, r := range e.srv.Requests() {
			if r.LastUser() == question {
				req = r
				return true
			}
		}
		return false
	})
	return req
}

// byQuestion is a Respond function for the fake endpoint that answers each
// question (the last user message) with its reply, distillation with no
// memories, and anything else with a reply that says it was unexpected.
func byQuestion(replies map[string]agenttest.Reply) func(agenttest.Request) agenttest.Reply {
	return func(r agenttest.Request) agenttest.Reply {
		if isDistill(r) {
			return agenttest.Reply{Text: "[]"}
		}
		if reply, ok := replies[r.LastUser()]; ok {
			return reply
		}
		return agenttest.Reply{Text: fmt.Sprintf("unexpected request asking %q", r.LastUser())}
	}
}

// isDistill reports whether r is distillation's request, not a chat turn's.
func isDistill(r agenttest.Request) bool {
	return strings.HasPrefix(r.System(), "You maintain the long-term memory")
}

// addMemories adds entries to the memory file at path, as the user's own.
func addMemories(t *testing.T, path string, entries []memory.Entry) {
	t.Helper()
	st, err := memory.Open(path, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, e := range entries {
		if e.Source == "" {
			e.Source = memory.SourceUser
		}
		if _, _, err := st.Add(e); err != nil {
			t.Fatal(err)
		}
	}
}

// repoRoot is the module's root, two levels up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// xvfb starts a virtual display and returns its name. Other programs on
// a machine (and other test runs, perhaps in other PID namespaces that see
// each other's lock files as stale) take the low display numbers, so it
// tries random high ones until Xvfb gets one, and waits for a client to
// connect before it returns.
func xvfb(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: run make deps", tool)
		}
	}
	for try := 0; try < 5; try++ {
		display := fmt.Sprintf(":%d", 2000+rand.IntN(30000))
		if startXvfb(t, display) {
			return display
		}
	}
	t.Fatal("Xvfb did not start on any of 5 displays")
	return ""
}

// startXvfb runs Xvfb on display and reports whether it started there and
// takes clients; it stops with the test. -noreset keeps it from resetting
// when its last client leaves (between two sessions of the app, or after
// the probe), which refuses the connections that come meanwhile.
func startXvfb(t *testing.T, display string) bool {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", display, "-displayfd", "3", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	stop := func() {
		// SIGTERM lets Xvfb remove its lock file; a kill would leave it.
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	// Xvfb writes the display number when it is ready, or exits.
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		ready <- strings.TrimSpace(line) != ""
	}()
	select {
	case ok := <-ready:
		if !ok {
			stop()
			return false
		}
	case <-time.After(10 * time.Second):
		stop()
		t.Fatalf("Xvfb on %s was not ready in 10s", display)
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		probe := exec.Command("xdotool", "getdisplaygeometry")
		probe.Env = []string{"DISPLAY=" + display}
		if probe.Run() == nil {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("Xvfb on %s takes no clients", display)
	return false
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// waitFor polls cond every 50 ms for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
