package distill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"engram/memory/durable"
)

// readJSONFile reads the JSON file at path into v; a missing file leaves v
// as it is and is no error.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// writeJSONFile writes v as indented JSON to path, creating its folder
// (mode 0700), atomically; what names the file's content in the error.
func writeJSONFile(path, what string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("save %s: %w", what, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save %s: %w", what, err)
	}
	if err := durable.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("save %s %s: %w", what, path, err)
	}
	return nil
}
