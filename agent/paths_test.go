package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent"
	"engram/memory"
)

// TestDefaultPathsKeepStateOutOfSyncedFolders: the state folder is never
// the folder of memory.json or the chats, nor inside them, whatever the
// base folders are (adrg/xdg gives the three the same one on macOS and
// Windows); on Linux it is $XDG_STATE_HOME/engram.
func TestDefaultPathsKeepStateOutOfSyncedFolders(t *testing.T) {
	for _, c := range []struct {
		name                 string
		config, data, state  string
		wantConfig, wantData string
		wantState            string
	}{
		{"linux", "/h/.config", "/h/.local/share", "/h/.local/state",
			"/h/.config/engram", "/h/.local/share/engram", "/h/.local/state/engram"},
		{"macos", "/h/Library/Application Support", "/h/Library/Application Support", "/h/Library/Application Support",
			"/h/Library/Application Support/engram", "/h/Library/Application Support/engram",
			"/h/Library/Application Support/engram-state"},
		{"state home is the data home", "/h/.config", "/h/.local/share", "/h/.local/share",
			"/h/.config/engram", "/h/.local/share/engram", "/h/.local/share/engram-state"},
		{"state home inside the config folder", "/h/.config", "/h/.local/share", "/h/.config/engram",
			"/h/.config/engram", "/h/.local/share/engram", "/h/.config/engram/engram-state"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := agent.DefaultPaths(filepath.FromSlash(c.config), filepath.FromSlash(c.data), filepath.FromSlash(c.state))
			want := agent.Paths{ConfigDir: filepath.FromSlash(c.wantConfig), DataDir: filepath.FromSlash(c.wantData),
				StateDir: filepath.FromSlash(c.wantState)}
			if p != want {
				t.Errorf("DefaultPaths = %+v, want %+v", p, want)
			}
		})
	}
}

// TestNewOpensStoresWithTheStateFolder: agent.New needs Paths.StateDir and
// opens the stores with it, so that no caller can open them without a
// journal; the state folder then holds the device ID and the journal, and
// a memory written through the agent survives an older copy of memory.json.
func TestNewOpensStoresWithTheStateFolder(t *testing.T) {
	dir := t.TempDir()
	paths := agent.DefaultPaths(dir+"/config", dir+"/data", dir+"/state")
	noState := paths
	noState.StateDir = ""
	if a, err := agent.New(agent.Options{Paths: noState}); err == nil || !strings.Contains(err.Error(), "StateDir") {
		if a != nil {
			a.Close()
		}
		t.Fatalf("New without a state folder: %v", err)
	}

	open := func() (*agent.Agent, *memory.Store) {
		a, err := agent.New(agent.Options{Paths: paths})
		if err != nil {
			t.Fatal(err)
		}
		st, err := a.Memory(agent.ScopeGlobal, "")
		if err != nil {
			t.Fatal(err)
		}
		return a, st
	}
	a, st := open()
	if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's sister is called Ada.", Source: memory.SourceUser}); err != nil {
		t.Fatal(err)
	}
	older, err := os.ReadFile(paths.GlobalMemory())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's boat is called Albatross.", Source: memory.SourceTool}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(paths.StateDir, "device-id")); err != nil {
		t.Errorf("no device ID in the state folder: %v", err)
	}
	if err := os.WriteFile(paths.GlobalMemory(), older, 0o600); err != nil {
		t.Fatal(err)
	}
	a, st = open()
	defer a.Close()
	if n := len(st.List()); n != 2 {
		t.Errorf("%d memories after the older copy arrived, want 2: %+v", n, st.List())
	}
}
