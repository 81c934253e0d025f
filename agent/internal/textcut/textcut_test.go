package textcut

import "testing"

func TestMiddle(t *testing.T) {
	tests := []struct {
		s           string
		limit, head int
		want        string
	}{
		{"short", 10, 3, "short"},
		{"0123456789abcdef", 10, 3, "012..bcdef"},
		{"ééééé", 7, 3, "é..é"},       // neither end splits a character
		{"0123456789", 2, 3, "012.."}, // head and gap exceed the limit: no tail
	}
	for _, tt := range tests {
		if got := Middle(tt.s, tt.limit, tt.head, ".."); got != tt.want {
			t.Errorf("Middle(%q, %d, %d) = %q, want %q", tt.s, tt.limit, tt.head, got, tt.want)
		}
	}
}
