package memtools

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestToolSchemas pins the argument schemas the model is offered, as JSON
// values: the order of keys may change, nothing else.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		Write: `{"type":"object","properties":{` +
			`"kind":{"type":"string","enum":["preference","correction","lesson","fact"]},` +
			`"text":{"type":"string","description":"the memory, one self-contained sentence"},` +
			`"scope":{"type":"string","enum":["global","project"],"description":"project: only about the pinned project folder (default global)"}},` +
			`"required":["kind","text"]}`,
		Search: `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`,
		Update: `{"type":"object","properties":{"id":{"type":"string"},"text":{"type":"string"}},"required":["id","text"]}`,
		Forget: `{"type":"object","properties":{"id":{"type":"string"},"reason":{"type":"string"}},"required":["id"]}`,
	}
	if len(Defs) != len(want) {
		t.Fatalf("%d tools, want %d", len(Defs), len(want))
	}
	for _, tool := range Defs {
		var got, exp any
		if err := json.Unmarshal(tool.Parameters, &got); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if err := json.Unmarshal([]byte(want[tool.Name]), &exp); err != nil {
			t.Fatalf("%s: no schema pinned: %v", tool.Name, err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s schema\n got %s\nwant %s", tool.Name, tool.Parameters, want[tool.Name])
		}
	}
}
