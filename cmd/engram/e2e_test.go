//go:build e2e

// The end-to-end test runs the real build/engram under Xvfb against the fake
// OpenAI-compatible endpoint, types with xdotool, and saves screenshots in
// build/e2e/. Run it with `make e2e` (it needs xvfb, xdotool and imagemagick).

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// repoRoot is the module's root, two levels up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// xvfb starts a virtual display and returns its name.
func xvfb(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: run make deps", tool)
		}
	}
	n := 90
	for ; n < 190; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); os.IsNotExist(err) {
			if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); os.IsNotExist(err) {
				break
			}
		}
	}
	display := fmt.Sprintf(":%d", n)
	cmd := exec.Command("Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if fileExists(fmt.Sprintf("/tmp/.X11-unix/X%d", n)) {
			return display
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("Xvfb %s did not start", display)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// session is one run of the app with its own XDG folders.
type session struct {
	t       *testing.T
	display string
	xdg     string
	cmd     *exec.Cmd
	out     bytes.Buffer
}

func newSession(t *testing.T, display, xdgDir string) *session {
	for _, d := range []string{"config", "data", "cache", "home"} {
		if err := os.MkdirAll(filepath.Join(xdgDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &session{t: t, display: display, xdg: xdgDir}
}

func (s *session) paths() agent.Paths {
	return agent.DefaultPaths(filepath.Join(s.xdg, "config"), filepath.Join(s.xdg, "data"))
}

func (s *session) env() []string {
	env := []string{"DISPLAY=" + s.display, "HOME=" + filepath.Join(s.xdg, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(s.xdg, "config"), "XDG_DATA_HOME=" + filepath.Join(s.xdg, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(s.xdg, "cache"), "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	return env
}

// start runs build/engram and returns, when its window is mapped and
// drawn, the time since the exec.
func (s *session) start(bin string) time.Duration {
	s.t.Helper()
	s.cmd = exec.Command(bin)
	s.cmd.Env = s.env()
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	begin := time.Now()
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", bin, err)
	}
	s.t.Cleanup(s.stop)
	deadline := begin.Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if w := s.window(); w != "" && s.drawn(w) {
			return time.Since(begin)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("no Engram window drawn after 20s; output:\n%s", s.out.String())
	return 0
}

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

func (s *session) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// xdo runs xdotool on the session's display.
func (s *session) xdo(args ...string) {
	s.t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = s.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
}

// shot saves a screenshot of the display as build/e2e/name.png.
func (s *session) shot(dir, name string) string {
	s.t.Helper()
	path := filepath.Join(dir, name+".png")
	cmd := exec.Command("import", "-window", "root", path)
	cmd.Env = s.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("screenshot: %v: %s", err, out)
	}
	return path
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

// seedMemories writes the memories the run starts with.
func seedMemories(t *testing.T, path string) {
	st, err := memory.Open(path, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, e := range []memory.Entry{
		{Kind: memory.KindPreference, Text: "回复使用中文，技术名词保留英文", Pinned: true},
		{Kind: memory.KindCorrection, Text: "部署脚本默认先 dry-run，确认无误后再加 --apply"},
		{Kind: memory.KindFact, Text: "前端用 Vite + React，部署在 Cloudflare Pages"},
		{Kind: memory.KindLesson, Text: "数据库迁移要先在 staging 跑一遍，上次直接上线锁表了"},
		{Kind: memory.KindFact, Text: "The user's main project is bluebird, a Go service deployed with make deploy"},
		{Kind: memory.KindPreference, Text: "Prefers short answers with a code example"},
	} {
		e.Source = memory.SourceUser
		if _, _, err := st.Add(e); err != nil {
			t.Fatal(err)
		}
	}
}

// The Markdown-heavy answers the e2e run shows and screenshots, in English
// and in Chinese.
const (
	mdQuestionEN = "Show the release plan"
	mdAnswerEN   = "## Release plan\n\n| Step | Owner | Time |\n|:--|:-:|--:|\n| Build | CI | 4 min |\n" +
		"| Deploy | **you** | 2 min |\n\n1. Tag the release\n2. Deploy\n   - run `make deploy DRY_RUN=1`\n" +
		"   - then ~~make deploy~~ `make deploy APPLY=1`\n3. Watch the logs\n\n- [x] tests green\n- [ ] changelog\n\n" +
		"```go\n// Deploy runs the release.\nfunc Deploy(ctx context.Context) error {\n\treturn run(ctx, \"make\", \"deploy\")\n}\n```\n\n" +
		"Docs: https://example.com/release\n"
	mdQuestionZH = "给我发布计划"
	mdAnswerZH   = "## 发布计划\n\n| 步骤 | 负责人 | 耗时 |\n|:--|:-:|--:|\n| 构建 | CI | 4 分钟 |\n" +
		"| 部署 | **你** | 2 分钟 |\n\n1. 打标签\n2. 部署\n   - 先跑 `./deploy.sh --dry-run`\n   - 再跑 ~~旧脚本~~ `./deploy.sh --apply`\n" +
		"3. 看日志\n\n- [x] 测试通过\n- [ ] 更新日志\n\n```sh\n# 部署\n./deploy.sh --apply\n```\n"
)

const (
	longQuestion = "Write the full deploy checklist"
	question     = "部署脚本怎么改？"
	answerMarker = "部署前先跑"
	toolMemory   = "部署后用 kubectl logs 检查日志"
	distilled    = "用户希望部署脚本默认 dry-run"
)

func TestE2E(t *testing.T) {
	root := repoRoot(t)
	bin := filepath.Join(root, "build", "engram")
	if !fileExists(bin) {
		t.Fatalf("%s is missing: run make build", bin)
	}
	out := filepath.Join(root, "build", "e2e")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewServer()
	defer srv.Close()
	srv.Models = []string{"fake-model", "qwen2.5:7b"}
	hold := make(chan struct{})
	defer close(hold)
	srv.Respond = func(r agenttest.Request) agenttest.Reply {
		switch {
		case r.LastUser() == mdQuestionEN:
			return agenttest.Reply{Text: mdAnswerEN}
		case r.LastUser() == mdQuestionZH:
			return agenttest.Reply{Text: mdAnswerZH}
		case r.LastUser() == longQuestion:
			return agenttest.Reply{Pieces: []string{"## 部署清单\n\n1. 先跑 `./deploy.sh --dry-run`\n2. 检查输出里的 diff\n3. "}, Hold: hold}
		case strings.HasPrefix(r.System(), "You maintain the long-term memory"):
			return agenttest.Reply{Text: `[{"kind":"preference","text":"` + distilled + `","scope":"global"}]`}
		case len(r.ToolResults()) == 0 && slices.Contains(r.Tools, agent.ToolMemoryWrite):
			return agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "call_1", Name: agent.ToolMemoryWrite,
				Args: `{"kind":"lesson","text":"` + toolMemory + `"}`}}}
		}
		return agenttest.Reply{Text: "按你的习惯，" + answerMarker + " **dry-run**，确认输出后再真正部署：\n\n" +
			"```sh\n./deploy.sh --dry-run\n./deploy.sh --apply\n```\n\n部署后用 `kubectl logs` 看一眼日志。我已经把这一点记下来了。"}
	}

	display := xvfb(t)
	s := newSession(t, display, t.TempDir())
	p := s.paths()
	seedMemories(t, p.GlobalMemory())
	if err := agent.SaveConfig(p.ConfigFile(), agent.Config{BaseURL: srv.BaseURL(), Model: "fake-model",
		AutoRecall: true, Distill: true}); err != nil {
		t.Fatal(err)
	}
	s.start(bin)
	time.Sleep(500 * time.Millisecond) // let the first frame and the chat list settle

	// The message box has the focus at start: type right away.
	s.xdo("type", "--delay", "120", question)
	s.xdo("key", "Return")
	waitFor(t, 20*time.Second, "the answer and the distilled memory", func() bool {
		b, _ := os.ReadFile(p.GlobalMemory())
		return bytes.Contains(b, []byte(distilled))
	})
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].LastUser() != question {
		t.Fatalf("the endpoint got %d requests, the first asking %q", len(reqs), firstUser(reqs))
	}
	if !strings.Contains(reqs[0].System(), "部署脚本默认先 dry-run") {
		t.Errorf("the recalled memory is not in the prompt:\n%s", reqs[0].System())
	}
	time.Sleep(700 * time.Millisecond)
	// Open the "N memories recalled · 1 pinned · 1 tool call" disclosure
	// under the answer from the keyboard: Shift+Tab from the message box
	// reaches it, Space opens it (listing the pinned memory too) and Tab
	// goes back.
	s.xdo("key", "shift+Tab", "space", "Tab")
	time.Sleep(500 * time.Millisecond)
	t.Logf("screenshot %s", s.shot(out, "chat"))

	s.xdo("key", "ctrl+f")
	s.xdo("type", "--delay", "120", "部署")
	time.Sleep(700 * time.Millisecond)
	t.Logf("screenshot %s", s.shot(out, "inspector"))

	// A second question streams and holds: Stop shows; Esc stops it and
	// the partial answer is kept.
	s.xdo("key", "Escape") // clears the memory search
	s.xdo("mousemove", "--window", s.window(), "500", "750", "click", "1")
	s.xdo("type", "--delay", "20", longQuestion)
	s.xdo("key", "Return")
	waitFor(t, 10*time.Second, "the held answer", func() bool {
		return len(srv.Requests()) > 0 &&
			srv.Requests()[len(srv.Requests())-1].LastUser() == longQuestion
	})
	time.Sleep(700 * time.Millisecond)
	t.Logf("screenshot %s", s.shot(out, "streaming"))
	s.xdo("key", "Escape")
	waitFor(t, 10*time.Second, "the stopped answer saved", func() bool {
		files, _ := filepath.Glob(filepath.Join(p.ChatsDir(), "*.json"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(`"stopped": true`)) {
				return true
			}
		}
		return false
	})

	// Markdown-heavy answers, in English and in Chinese: tables, nested,
	// ordered and task lists, strikethrough, highlighted code.
	for _, md := range []struct{ question, marker, shot string }{
		{mdQuestionEN, "Watch the logs", "markdown-en"},
		{mdQuestionZH, "看日志", "markdown-zh"},
	} {
		s.xdo("type", "--delay", "120", md.question)
		s.xdo("key", "Return")
		waitFor(t, 10*time.Second, "the Markdown answer", func() bool {
			files, _ := filepath.Glob(filepath.Join(p.ChatsDir(), "*.json"))
			for _, f := range files {
				if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(md.marker)) {
					return true
				}
			}
			return false
		})
		time.Sleep(900 * time.Millisecond)
		t.Logf("screenshot %s", s.shot(out, md.shot))
	}

	b, err := os.ReadFile(p.GlobalMemory())
	if err != nil {
		t.Fatal(err)
	}
	es, _, err := memory.ParseFile(b, time.Now())
	if err != nil {
		t.Fatalf("memory.json does not parse after the run: %v", err)
	}
	var texts []string
	for _, e := range es {
		if e.Live() {
			texts = append(texts, e.Text)
		}
	}
	for _, want := range []string{toolMemory, distilled, "部署脚本默认先 dry-run，确认无误后再加 --apply"} {
		if !slices.Contains(texts, want) {
			t.Errorf("memory.json lacks %q; it holds %q", want, texts)
		}
	}
	chats, _ := filepath.Glob(filepath.Join(p.ChatsDir(), "*.json"))
	if len(chats) != 1 {
		t.Fatalf("%d chat files, want 1", len(chats))
	}
	if c, _ := os.ReadFile(chats[0]); !bytes.Contains(c, []byte(answerMarker)) {
		t.Errorf("the chat file lacks the answer")
	}
	s.stop()

	// A chat pinned to a project folder with an AGENTS.md: the toolbar shows
	// the folder and the file, the Project tab its memories.
	pinned := newSession(t, display, t.TempDir())
	proj := filepath.Join(pinned.xdg, "home", "code", "bluebird")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("# bluebird\n用中文回答。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pinProjectChat(t, pinned.paths(), proj, srv.BaseURL())
	pinned.start(bin)
	time.Sleep(500 * time.Millisecond)
	// The Project tab is just before the memory search (Ctrl+F).
	pinned.xdo("key", "ctrl+f", "shift+Tab", "space")
	time.Sleep(700 * time.Millisecond)
	t.Logf("screenshot %s", pinned.shot(out, "project"))
	pinned.stop()

	// First run with nothing configured: the settings open by themselves.
	first := newSession(t, display, t.TempDir())
	first.start(bin)
	time.Sleep(700 * time.Millisecond)
	t.Logf("screenshot %s", first.shot(out, "first-run"))
	first.xdo("key", "Escape")
	first.stop()
}

// pinProjectChat prepares a chat pinned to proj, with project memories.
func pinProjectChat(t *testing.T, p agent.Paths, proj, baseURL string) {
	t.Helper()
	cfg := agent.Config{BaseURL: baseURL, Model: "fake-model", AutoRecall: true}
	if err := agent.SaveConfig(p.ConfigFile(), cfg); err != nil {
		t.Fatal(err)
	}
	ag, err := agent.New(agent.Options{Config: cfg, Paths: p})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	c, err := ag.NewChat()
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.RenameChat(c.ID, "bluebird 部署"); err != nil {
		t.Fatal(err)
	}
	if err := ag.SetProject(c.ID, proj); err != nil {
		t.Fatal(err)
	}
	st, err := ag.Memory(agent.ScopeProject, proj)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []memory.Entry{
		{Kind: memory.KindFact, Text: "bluebird 用 make deploy 部署到 fly.io"},
		{Kind: memory.KindCorrection, Text: "不要改 migrations/ 里已经发布的文件，新建一个迁移"},
		{Kind: memory.KindLesson, Text: "CI 的集成测试要先启动 Postgres 容器"},
	} {
		e.Source = memory.SourceUser
		if _, _, err := st.Add(e); err != nil {
			t.Fatal(err)
		}
	}
}

func firstUser(reqs []agenttest.Request) string {
	if len(reqs) == 0 {
		return ""
	}
	return reqs[0].LastUser()
}

// TestColdStart measures the time from exec to a drawn Engram window, five
// times each with a fresh and with a warm cache folder, and logs the medians.
func TestColdStart(t *testing.T) {
	bin := filepath.Join(repoRoot(t), "build", "engram")
	display := xvfb(t)
	measure := func(fresh bool) time.Duration {
		shared := t.TempDir()
		var runs []time.Duration
		for i := 0; i < 5; i++ {
			dir := shared
			if fresh {
				dir = t.TempDir()
			}
			s := newSession(t, display, dir)
			if err := agent.SaveConfig(s.paths().ConfigFile(), agent.Config{BaseURL: "http://127.0.0.1:9/v1",
				Model: "m"}); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, s.start(bin))
			s.stop()
		}
		slices.Sort(runs)
		t.Logf("fresh cache %v: runs %v, median %v", fresh, runs, runs[2])
		return runs[2]
	}
	measure(true)
	// The budget is 1.5 s; the median is reported, not asserted, as a
	// shared CI machine's timing varies. Only a start so slow that something
	// must wait on the network or a lock fails.
	m := measure(false)
	t.Logf("cold start median %v (budget 1.5s)", m)
	if m > 5*time.Second {
		t.Errorf("median cold start %v: something blocks the start", m)
	}

	// A full profile: 1,000 chats and 10,000 memories, and no endpoint
	// configured, so the app also probes for local servers. The window is
	// drawn before either is read: the start takes about as long.
	dir := t.TempDir()
	s := newSession(t, display, dir)
	seedProfile(t, s.paths(), 1000, 10000)
	var runs []time.Duration
	for i := 0; i < 5; i++ {
		s := newSession(t, display, dir)
		runs = append(runs, s.start(bin))
		s.stop()
	}
	slices.Sort(runs)
	t.Logf("cold start with 1,000 chats and 10,000 memories: runs %v, median %v (budget 1.5s)", runs, runs[2])
	if runs[2] > 5*time.Second {
		t.Errorf("median cold start %v with a full profile: something blocks the start", runs[2])
	}
}

// seedProfile writes chats chat files of 10 messages each and a global
// memory of memories entries.
func seedProfile(t *testing.T, p agent.Paths, chats, memories int) {
	t.Helper()
	if err := os.MkdirAll(p.ChatsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range chats {
		c := agent.Chat{ChatInfo: agent.ChatInfo{ID: fmt.Sprintf("20260101-000000-%08x", i),
			Title: fmt.Sprintf("Chat %d about the deploy", i), Created: t0, Updated: t0.Add(time.Duration(i) * time.Minute),
			AutoRecall: true}}
		for j := range 10 {
			role, text := agent.RoleUser, fmt.Sprintf("Question %d of chat %d: how do I deploy service %d?", j, i, j)
			if j%2 == 1 {
				role, text = agent.RoleAssistant, fmt.Sprintf("Run `make deploy SERVICE=%d` with **dry-run** first.\n\n"+
					"```sh\nmake deploy DRY_RUN=1\n```\n\n部署脚本默认先 dry-run。", j)
			}
			c.Messages = append(c.Messages, agent.Message{ID: fmt.Sprintf("m%d", j), Role: role, Text: text,
				Time: c.Updated})
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.ChatsDir(), c.ID+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := memory.Open(p.GlobalMemory(), memory.Options{MaxEntries: memories + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	words := []string{"bluebird", "deploy", "postgres", "vite", "react", "kubectl", "staging", "部署", "数据库", "前端"}
	es := make([]memory.Entry, memories)
	for i := range es {
		es[i] = memory.Entry{Kind: memory.KindFact, Source: memory.SourceUser, Text: fmt.Sprintf(
			"Fact %d: the %s service %d uses %s and listens on port %d", i, words[i%len(words)], i/7,
			words[(i/3)%len(words)], 1000+i)}
	}
	if _, err := st.AddAll(es); err != nil {
		t.Fatal(err)
	}
	if n := st.Len(); n != memories {
		t.Fatalf("the seeded store holds %d memories, want %d", n, memories)
	}
}
