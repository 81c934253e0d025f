package agent

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
		ToolMemoryWrite: `{"type":"object","properties":{` +
			`"kind":{"type":"string","enum":["preference","correction","lesson","fact"]},` +
			`"text":{"type":"string","description":"the memory, one self-contained sentence"},` +
			`"scope":{"type":"string","enum":["global","project"],"description":"project: only about the pinned project folder (default global)"}},` +
			`"required":["kind","text"]}`,
		ToolMemorySearch: `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`,
		ToolMemoryUpdate: `{"type":"object","properties":{"id":{"type":"string"},"text":{"type":"string"}},"required":["id","text"]}`,
		ToolMemoryForget: `{"type":"object","properties":{"id":{"type":"string"},"reason":{"type":"string"}},"required":["id"]}`,
	}
	if len(toolDefs) != len(want) {
		t.Fatalf("%d tools, want %d", len(toolDefs), len(want))
	}
	for _, tool := range toolDefs {
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
