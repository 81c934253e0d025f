package locale

import "testing"

func TestPlain(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // LANGUAGE afterwards
	}{
		{map[string]string{"LANG": "C.UTF-8"}, "en"},
		{map[string]string{"LANG": "C.utf8"}, "en"},
		{map[string]string{"LC_ALL": "POSIX.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"},
		{map[string]string{"LC_MESSAGES": "C.UTF-8"}, "en"},
		{map[string]string{"LANG": "C"}, ""},           // the toolkit reads a plain C as it is
		{map[string]string{"LANG": "zh_CN.UTF-8"}, ""}, // a real locale
		{map[string]string{"LC_ALL": "zh_CN.UTF-8", "LANG": "C.UTF-8"}, ""},
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "zh_CN"}, "zh_CN"}, // the person's choice stays
		{map[string]string{}, ""},
	} {
		env := map[string]string{}
		for k, v := range tc.env {
			env[k] = v
		}
		set := func(k, v string) error { env[k] = v; return nil }
		if err := Plain(func(k string) string { return env[k] }, set); err != nil {
			t.Fatal(err)
		}
		if got := env["LANGUAGE"]; got != tc.want {
			t.Errorf("%v: LANGUAGE = %q, want %q", tc.env, got, tc.want)
		}
	}
}
