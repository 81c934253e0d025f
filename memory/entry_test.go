package memory_test

import (
	"errors"
	"testing"

	"engram/memory"
)

func TestCheckKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   memory.Kind
		want memory.Kind
		err  error
	}{
		{"", memory.KindFact, nil},
		{"preference", memory.KindPreference, nil},
		{"pref", memory.KindPreference, nil},
		{" Feedback ", memory.KindCorrection, nil},
		{"experience", memory.KindLesson, nil},
		{"lesson-learned", memory.KindLesson, nil},
		{"project", memory.KindFact, nil},
		{"todo", "", memory.ErrUnknownKind},
		{"preferences please", "", memory.ErrUnknownKind},
	}
	for _, tc := range cases {
		got, err := memory.CheckKind(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("CheckKind(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
		if tc.in == "" {
			continue // ParseKind has no default
		}
		if got, err := memory.ParseKind(string(tc.in)); got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("ParseKind(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		src  memory.Source
		want string
		err  error
	}{
		{"  keep inner\r\nlines\tand tabs  ", memory.SourceUser, "keep inner\nlines\tand tabs", nil},
		{"emoji 👩‍💻 and zero-width joiners are text", memory.SourceAuto, "emoji 👩‍💻 and zero-width joiners are text", nil},
		{"", memory.SourceUser, "", memory.ErrEmpty},
		{"\x00", memory.SourceUser, "", memory.ErrInvalidText},
		{"\xc3\x28", memory.SourceUser, "", memory.ErrInvalidText},
	}
	for _, tc := range cases {
		got, err := memory.CleanText(tc.in, tc.src)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("CleanText(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	if memory.MaxRunes(memory.SourceAuto) != 400 || memory.MaxRunes(memory.SourceTool) != 8000 || memory.MaxRunes(memory.SourceImport) != 8000 {
		t.Error("limits by source")
	}
}

func TestProjectPaths(t *testing.T) {
	t.Parallel()
	a, b := memory.ProjectSlug("/home/ana/src/engram"), memory.ProjectSlug("/home/bo/src/engram")
	if a == b || len(a) != len("engram-")+8 || a[:7] != "engram-" {
		t.Errorf("slugs %q %q", a, b)
	}
	if memory.ProjectSlug("/home/ana/src/engram/") != a || memory.ProjectSlug("/home/ana/src/../src/engram") != a {
		t.Error("the slug depends on the spelling of the path")
	}
	if s := memory.ProjectSlug("/tmp/项目"); s[:8] != "project-" {
		t.Errorf("slug of a name without ASCII letters: %q", s)
	}
	if got := memory.ProjectPath("/cfg/engram", "/home/ana/src/engram"); got != "/cfg/engram/projects/"+a+"/memory.json" {
		t.Errorf("ProjectPath = %q", got)
	}
	if got := memory.GlobalPath("/cfg/engram"); got != "/cfg/engram/memory.json" {
		t.Errorf("GlobalPath = %q", got)
	}
}
