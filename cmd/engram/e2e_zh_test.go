//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

// TestE2EChinese runs build/engram with LANG=zh_CN.UTF-8 and saves
// screenshots of the window in Chinese (build/e2e/zh-*.png), then once more
// with the system's fonts hidden, as on a machine without a CJK font, and
// saves the font notice (build/e2e/font-notice.png). The fonts are hidden in
// a mount namespace of the app's own (unshare -m, a bind mount of an empty
// folder over /usr/share/fonts), never removed; without unshare that part
// is skipped.
func TestE2EChinese(t *testing.T) {
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
	srv.Respond = func(agenttest.Request) agenttest.Reply {
		return agenttest.Reply{Text: "好的：部署前先跑 `./deploy.sh --dry-run`，确认输出后再加 `--apply`。"}
	}
	display := xvfb(t)
	zh := []string{"LANG=zh_CN.UTF-8", "LANGUAGE=", "LC_ALL="}

	s := newSession(t, display, t.TempDir())
	s.extra = zh
	p := s.paths()
	seedMemories(t, p.GlobalMemory())
	if err := agent.SaveConfig(p.ConfigFile(), agent.Config{BaseURL: srv.BaseURL(), Model: "fake-model",
		AutoRecall: true}); err != nil {
		t.Fatal(err)
	}
	s.start(bin)
	time.Sleep(500 * time.Millisecond)
	s.xdo("type", "--delay", "120", "部署脚本怎么改？")
	s.xdo("key", "Return")
	waitFor(t, 20*time.Second, "the answer", func() bool { return len(srv.Requests()) > 0 })
	time.Sleep(1500 * time.Millisecond)
	t.Logf("screenshot %s", s.shot(out, "zh-chat"))
	s.xdo("key", "ctrl+f")
	s.xdo("type", "--delay", "120", "部署")
	time.Sleep(700 * time.Millisecond)
	t.Logf("screenshot %s", s.shot(out, "zh-inspector"))
	s.stop()

	first := newSession(t, display, t.TempDir())
	first.extra = zh
	first.start(bin)
	time.Sleep(700 * time.Millisecond)
	t.Logf("screenshot %s", first.shot(out, "zh-settings"))
	first.stop()

	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is missing: the font notice needs the fonts hidden")
	}
	empty := t.TempDir()
	if err := exec.Command("unshare", "-m", "--propagation", "private", "true").Run(); err != nil {
		t.Skipf("cannot make a mount namespace (%v): the font notice needs the fonts hidden", err)
	}
	bare := newSession(t, display, t.TempDir())
	bare.extra = zh
	bare.wrap = []string{"unshare", "-m", "--propagation", "private", "sh", "-c",
		`for d in /usr/share/fonts /usr/local/share/fonts; do [ -d "$d" ] && mount --bind "$1" "$d"; done; exec "$2"`,
		"sh", empty}
	seedMemories(t, bare.paths().GlobalMemory())
	if err := agent.SaveConfig(bare.paths().ConfigFile(), agent.Config{BaseURL: srv.BaseURL(), Model: "fake-model"}); err != nil {
		t.Fatal(err)
	}
	bare.start(bin)
	time.Sleep(2 * time.Second) // the font check runs in the background after the first frame
	t.Logf("screenshot %s", bare.shot(out, "font-notice"))
	bare.stop()
}
