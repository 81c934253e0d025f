// Package locale reads a C locale with an encoding (LANG=C.UTF-8, as
// containers and minimal systems set it) as the English it means, before
// the window's toolkit looks at it. Its lookup takes "C.UTF-8" for a
// language named "C" and logs "Error parsing user locale C" at start,
// even for `engram --version`.
//
// It works in its init, so it must be imported (for its side effect) by
// the program's main package: Go initialises the packages in the order of
// their import paths when nothing else orders them, so this one, under
// engram/, and which imports nothing but the standard library, runs
// before fyne.io's.
package locale

import (
	"os"
	"strings"
)

func init() {
	_ = Plain(os.Getenv, os.Setenv) // nothing to do if it fails: the toolkit then logs its error
}

// Plain sets LANGUAGE to "en" when the locale in effect (LC_ALL, else
// LC_MESSAGES, else LANG) is C or POSIX with an encoding and LANGUAGE is
// not set: gettext reads LANGUAGE only under a real locale, and the C
// locale's messages are the English ones, so nothing else changes. The
// locale itself is left alone (programs started from the app keep its
// encoding).
func Plain(getenv func(string) string, setenv func(key, value string) error) error {
	if getenv("LANGUAGE") != "" {
		return nil
	}
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		loc := getenv(v)
		if loc == "" {
			continue
		}
		name, _, withEncoding := strings.Cut(loc, ".")
		if withEncoding && (name == "C" || name == "POSIX") {
			return setenv("LANGUAGE", "en")
		}
		return nil
	}
	return nil
}
