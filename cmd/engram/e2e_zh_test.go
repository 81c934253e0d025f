//go:build e2e

package main

import (
	"os/exec"
	"testing"
	"time"

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
	e := newE2E(t)
	e.srv.Models = []string{"fake-model", "qwen2.5:7b"}
	e.srv.Respond = func(agenttest.Request) agenttest.Reply {
		return agenttest.Reply{Text: "好的：部署前先跑 `./deploy.sh --dry-run`，确认输出后再加 `--apply`。"}
	}
	zh := []string{"LANG=zh_CN.UTF-8", "LANGUAGE=", "LC_ALL="}

	s := e.open(setup{Config: e.config(), Memories: seeded, Env: zh})
	s.send("部署脚本怎么改？")
	waitFor(t, 20*time.Second, "the answer", func() bool { return len(e.srv.Requests()) > 0 })
	time.Sleep(1500 * time.Millisecond)
	s.shot("zh-chat")
	s.xdo("key", "ctrl+f")
	s.typeText("部署")
	time.Sleep(700 * time.Millisecond)
	s.shot("zh-inspector")
	s.stop()

	first := e.open(setup{Env: zh})
	time.Sleep(200 * time.Millisecond)
	first.shot("zh-settings")
	first.stop()

	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is missing: the font notice needs the fonts hidden")
	}
	if err := exec.Command("unshare", "-m", "--propagation", "private", "true").Run(); err != nil {
		t.Skipf("cannot make a mount namespace (%v): the font notice needs the fonts hidden", err)
	}
	bare := e.session(setup{Config: e.config(), Memories: seeded, Env: zh, Wrap: []string{
		"unshare", "-m", "--propagation", "private", "sh", "-c",
		`for d in /usr/share/fonts /usr/local/share/fonts; do [ -d "$d" ] && mount --bind "$1" "$d"; done; exec "$2"`,
		"sh", t.TempDir()}})
	bare.start()
	time.Sleep(2 * time.Second) // the font check runs in the background after the first frame
	bare.shot("font-notice")
	bare.stop()
}
