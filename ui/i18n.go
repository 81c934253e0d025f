package ui

import (
	"embed"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2/lang"

	"engram/agent"
	"engram/memory"
)

// translations holds the window's strings in English (en.json) and
// Simplified Chinese (zh-Hans.json), keyed by their English text, in the
// go-i18n JSON that fyne.io/fyne/v2/lang reads: a plain string, or for a
// string with a count an object of plural forms ("one", "other").
//
//go:embed translations/*.json
var translations embed.FS

// The language choices of the settings: follow the system's locale, or one
// of the two translations.
const (
	LanguageSystem  = ""
	LanguageEnglish = "en"
	LanguageChinese = "zh-Hans"
)

// SetupLanguage loads the translations and picks the language: choice is
// one of the Language constants (an unknown one follows the system).
//
// Fyne's lang package always follows the locale the environment names
// (LANGUAGE, then LC_ALL, LC_MESSAGES, LANG on Linux and BSD), and has no
// call to pick a language. A choice other than the system's is therefore
// made the way gettext programs are told, by putting it first in LANGUAGE
// (and in LC_MESSAGES when no locale is set, since LANGUAGE is ignored
// then). The program calls this once, before the window is built; a
// change in the settings applies at the next start.
func SetupLanguage(choice string) error {
	langMu.Lock()
	defer langMu.Unlock()
	if langSet && choice == langChoice {
		return nil
	}
	langSet, langChoice = true, choice
	if choice == LanguageEnglish || choice == LanguageChinese {
		tag := strings.ReplaceAll(choice, "-", "_")
		if err := os.Setenv("LANGUAGE", tag); err != nil {
			return fmt.Errorf("set language %s: %w", choice, err)
		}
		if !localeSet() {
			if err := os.Setenv("LC_MESSAGES", tag+".UTF-8"); err != nil {
				return fmt.Errorf("set language %s: %w", choice, err)
			}
		}
	}
	if err := lang.AddTranslationsFS(translations, "translations"); err != nil {
		return fmt.Errorf("load translations: %w", err)
	}
	return nil
}

// langMu guards the language last set up.
var (
	langMu     sync.Mutex
	langSet    bool
	langChoice string
)

// localeSet reports whether the environment names a locale that lets
// LANGUAGE apply (not unset, C or POSIX).
func localeSet() bool {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if s := os.Getenv(v); s != "" {
			return s != "C" && s != "POSIX"
		}
	}
	return false
}

// languageNames are the choices of the language setting, in order.
func languageNames() []string {
	return []string{lang.L("System language"), "English", "简体中文"}
}

// languageChoice maps a language setting to its name in languageNames and
// back.
func languageChoice(code string) string {
	switch code {
	case LanguageEnglish:
		return "English"
	case LanguageChinese:
		return "简体中文"
	}
	return lang.L("System language")
}

func languageCode(name string) string {
	switch name {
	case "English":
		return LanguageEnglish
	case "简体中文":
		return LanguageChinese
	}
	return LanguageSystem
}

// count is a number with its noun, plural right in each language: one is
// the English key ("{{.Count}} model"), whose translations give the forms;
// data fills the string's other fields.
func count(one string, n int, data ...map[string]any) string {
	d := map[string]any{"Count": n}
	for _, m := range data {
		maps.Copy(d, m)
	}
	return lang.N(one, n, d)
}

// kindName is a memory kind as the window shows it.
func kindName(k memory.Kind) string {
	switch k {
	case memory.KindPreference:
		return lang.L("preference")
	case memory.KindCorrection:
		return lang.L("correction")
	case memory.KindLesson:
		return lang.L("lesson")
	case memory.KindFact:
		return lang.L("fact")
	}
	return string(k)
}

// kindOf is the kind kindName shows as name.
func kindOf(name string) memory.Kind {
	for _, k := range memory.Kinds {
		if kindName(k) == name {
			return k
		}
	}
	return memory.Kind(name)
}

// sourceName says who wrote a memory.
func sourceName(s memory.Source) string {
	switch s {
	case memory.SourceUser, "":
		return lang.L("mine")
	case memory.SourceTool:
		return lang.L("the model's")
	case memory.SourceAuto:
		return lang.L("distilled")
	case memory.SourceImport:
		return lang.L("imported")
	}
	return string(s)
}

// since is a short relative time: "just now", "5 min ago", "3 h ago",
// "yesterday", or the day.
func since(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return lang.L("just now")
	case d < time.Hour:
		return lang.L("{{.N}} min ago", map[string]any{"N": int(d.Minutes())})
	case d < 24*time.Hour:
		return lang.L("{{.N}} h ago", map[string]any{"N": int(d.Hours())})
	case d < 48*time.Hour:
		return lang.L("yesterday")
	}
	return day(t)
}

// day is a date in the window's language.
func day(t time.Time) string {
	return t.Local().Format(lang.L("Jan 2, 2006"))
}

// stamp is a date and time in the window's language.
func stamp(t time.Time) string {
	return t.Local().Format(lang.L("Jan 2, 2006 15:04"))
}

// scopeName is a memory scope as the window shows it.
func scopeName(s agent.Scope) string {
	switch s {
	case agent.ScopeGlobal:
		return lang.L("global")
	case agent.ScopeProject:
		return lang.L("project")
	}
	return string(s)
}
