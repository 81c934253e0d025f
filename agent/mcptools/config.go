// Package mcptools runs the MCP servers a person lists in mcp.json and
// offers their tools to the model beside the memory tools: it starts each
// server in the background (a slow or broken one delays nothing, and its
// error is its status), names its tools so that two servers cannot
// collide, and calls them with a timeout and a cap on the result. Whether
// a call may run is the host's to ask (each server is "ask" or "always").
package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
)

// Approval says whether a server's tool calls need the person's yes.
type Approval string

// The approvals; the empty one is Ask.
const (
	Ask    Approval = "ask"
	Always Approval = "always"
)

// Server is one entry of mcp.json: Claude Desktop's format (command, args,
// env; or url for a streamable HTTP server) and Engram's own keys,
// approval and disabled.
type Server struct {
	Name     string            `json:"-"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	URL      string            `json:"url,omitempty"`
	Approval Approval          `json:"approval,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
}

// NeedsApproval reports whether a call of the server's tools asks first.
func (s Server) NeedsApproval() bool { return s.Approval != Always }

func (s Server) validate() error {
	switch {
	case s.Name == "":
		return errors.New("a server has no name")
	case (s.Command == "") == (s.URL == ""):
		return fmt.Errorf("server %q: give either \"command\" or \"url\"", s.Name)
	case s.Approval != "" && s.Approval != Ask && s.Approval != Always:
		return fmt.Errorf("server %q: approval %q: want \"ask\" or \"always\"", s.Name, s.Approval)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("server %q: url %q: want an http or https URL", s.Name, s.URL)
		}
	}
	return nil
}

// file is mcp.json's shape; other top-level keys are kept on rewrite.
type file struct {
	Servers map[string]json.RawMessage `json:"mcpServers"`
}

// ReadConfig reads the servers of mcp.json at path, sorted by name. A
// missing file is no servers; a file that does not parse, or a server
// that makes no sense, is an error naming it.
func ReadConfig(path string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Server
	for name, raw := range f.Servers {
		s := Server{}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s: server %q: %w", path, name, err)
		}
		s.Name = name
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, s)
	}
	sortByName(out, func(s Server) string { return s.Name })
	return out, nil
}

// SetApproval records a server's approval in mcp.json at path, keeping
// every other key of the file and of the server as they were.
func SetApproval(path, name string, a Approval) error {
	return editServers(path, "set approval of "+name, func(servers map[string]map[string]json.RawMessage) error {
		if servers[name] == nil {
			return fmt.Errorf("%s lists no such server", path)
		}
		servers[name]["approval"], _ = json.Marshal(a)
		return nil
	})
}
