package mcptools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"engram/memory/durable"
)

// editMu keeps this process's edits of mcp.json one after the other, so
// that none is lost to another's read-modify-write.
var editMu sync.Mutex

// editServers rewrites the servers of mcp.json at path with fn, keeping
// every other key of the file and of each server as they were; what is
// the operation, for errors. A missing file is one with no servers.
func editServers(path, what string, fn func(servers map[string]map[string]json.RawMessage) error) error {
	editMu.Lock()
	defer editMu.Unlock()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", what, err)
	}
	top := map[string]json.RawMessage{}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &top); err != nil {
			return fmt.Errorf("%s: %s: %w", what, path, err)
		}
	}
	servers := map[string]map[string]json.RawMessage{}
	if raw, ok := top["mcpServers"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return fmt.Errorf("%s: %s: mcpServers: %w", what, path, err)
		}
	}
	if err := fn(servers); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if top["mcpServers"], err = json.Marshal(servers); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := durable.WriteFileAtomic(path, append(out, '\n')); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// AddServer adds server s to mcp.json at path (creating the file if
// needed). A server that makes no sense, or whose name is taken, is an
// error and changes nothing.
func AddServer(path string, s Server) error {
	if err := s.validate(); err != nil {
		return fmt.Errorf("add server: %w", err)
	}
	return editServers(path, "add server "+s.Name, func(servers map[string]map[string]json.RawMessage) error {
		if servers[s.Name] != nil {
			return fmt.Errorf("%s already lists a server of that name", path)
		}
		raw, err := json.Marshal(s)
		if err != nil {
			return err
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return err
		}
		servers[s.Name] = fields
		return nil
	})
}

// RemoveServer takes server name out of mcp.json at path.
func RemoveServer(path, name string) error {
	return editServers(path, "remove server "+name, func(servers map[string]map[string]json.RawMessage) error {
		if servers[name] == nil {
			return fmt.Errorf("%s lists no such server", path)
		}
		delete(servers, name)
		return nil
	})
}

// SetDisabled switches server name off (disabled) or back on in mcp.json
// at path.
func SetDisabled(path, name string, off bool) error {
	return editServers(path, "switch server "+name, func(servers map[string]map[string]json.RawMessage) error {
		if servers[name] == nil {
			return fmt.Errorf("%s lists no such server", path)
		}
		if off {
			servers[name]["disabled"] = json.RawMessage("true")
		} else {
			delete(servers[name], "disabled")
		}
		return nil
	})
}
