package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	mod := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "engram", Version: v}}
	}
	tests := []struct {
		name   string
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"linker flag wins", "0.1.0", mod("v0.2.0"), "0.1.0"},
		{"linker flag with v", "v1.2.3", nil, "1.2.3"},
		{"module version from go install", "", mod("v0.2.0"), "0.2.0"},
		{"pseudo-version", "", mod("v0.0.0-20261201075000-83c515e1a2b3"), "0.0.0-20261201075000-83c515e1a2b3"},
		{"plain go build", "", mod("(devel)"), Dev},
		{"no module version", "", mod(""), Dev},
		{"no build info", "", nil, Dev},
		{"a name that starts with v is kept", "vendor-build", nil, "vendor-build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.linked, tt.info); got != tt.want {
				t.Errorf("resolve(%q, %v) = %q, want %q", tt.linked, tt.info, got, tt.want)
			}
		})
	}
}

func TestStringUnlinked(t *testing.T) {
	// A test binary is built without the -X flag and reports (devel) as its
	// module version.
	if got := String(); got != Dev {
		t.Errorf("String() = %q in a test binary, want %q", got, Dev)
	}
}
