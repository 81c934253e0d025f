package ui

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/font/opentype/tables"
	"github.com/go-text/typesetting/fontscan"
)

// FontCheck says where to look, once at start, for a font with Chinese
// characters. Fyne's own fonts have none: Fyne draws them with a system
// font it finds with go-text's fontscan in the folders
// fontscan.DefaultFontDirectories lists (fontconfig's on Linux and BSD, the
// system font folders on macOS and Windows). FontCheck looks in the same
// folders for a font whose character map has 中; when there is none, the
// window shows a notice, once, naming the package to install.
//
// The notice was chosen over bundling a font: a subset big enough for
// everyday Chinese is several MiB in the binary, and still misses the
// characters of names and titles a person writes.
type FontCheck struct {
	// Dirs are the font folders; nil means those Fyne searches.
	Dirs []string
	// FyneFont is the value of FYNE_FONT, the font Fyne uses first.
	// Fyne 2.7 reads only a single font (.ttf, .otf) there: a collection
	// (.ttc, .otc) fails to load and Fyne falls back to its own font.
	FyneFont string
	// GOOS is the system the notice names packages for ("": this one).
	GOOS string
	// Skip turns the check off (tests of other things).
	Skip bool
}

// han is the character the check looks for.
const han = '中'

// fontNoticeKey is the preference that remembers the notice was shown.
const fontNoticeKey = "cjk-font-notice-shown"

// fontState is what the check found.
type fontState struct {
	covered bool // a font with Chinese characters is installed
	ttc     bool // FYNE_FONT names a collection, which Fyne cannot read
}

// check looks for a font covering han; it reads files, so it runs off the
// UI goroutine.
func (c FontCheck) check() fontState {
	st := fontState{ttc: isCollection(c.FyneFont)}
	if c.FyneFont != "" && !st.ttc && fileHas(c.FyneFont, han) {
		st.covered = true
		return st
	}
	dirs := c.Dirs
	if dirs == nil {
		dirs, _ = fontscan.DefaultFontDirectories(quietLog{})
	}
	for _, f := range fontFiles(dirs) {
		if fileHas(f, han) {
			st.covered = true
			break
		}
	}
	return st
}

// quietLog drops fontscan's messages about folders it cannot read.
type quietLog struct{}

// Printf implements fontscan.Logger.
func (quietLog) Printf(string, ...any) {}

func isCollection(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".ttc" || ext == ".otc"
}

// fontFiles lists the font files under dirs, those whose names suggest
// Chinese first (so a machine that has one is done quickly).
func fontFiles(dirs []string) []string {
	var files []string
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil // an unreadable folder: go on with the others
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".ttf", ".otf", ".ttc", ".otc":
				if !e.IsDir() {
					files = append(files, p)
				}
			}
			return nil
		})
	}
	hint := func(p string) bool {
		n := strings.ToLower(filepath.Base(p))
		for _, h := range []string{"cjk", "sc", "han", "hei", "song", "wqy", "ming", "kai", "fallback", "yahei", "pingfang", "gothic"} {
			if strings.Contains(n, h) {
				return true
			}
		}
		return false
	}
	slices.SortStableFunc(files, func(a, b string) int {
		switch ha, hb := hint(a), hint(b); {
		case ha && !hb:
			return -1
		case hb && !ha:
			return 1
		}
		return 0
	})
	return files
}

// cmapTag names the character-map table, the only one fileHas reads.
var cmapTag = opentype.MustNewTag("cmap")

// fileHas reports whether a font file (or a font of a collection) maps r. It
// reads only the file's table directory and its character map, never the
// glyphs: a CJK collection is 20–30 MB, its character map a few hundred KB.
func fileHas(path string, r rune) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	loaders, err := opentype.NewLoaders(f)
	if err != nil {
		return false
	}
	var buf []byte
	for _, ld := range loaders {
		if buf, err = ld.RawTableTo(cmapTag, buf); err != nil {
			continue
		}
		table, _, err := tables.ParseCmap(buf)
		if err != nil {
			continue
		}
		cmap, _, err := font.ProcessCmap(table, 0)
		if err != nil {
			continue
		}
		if _, ok := cmap.Lookup(r); ok {
			return true
		}
	}
	return false
}

// fontAdvice says, in English, what to install on goos for Chinese
// characters.
func fontAdvice(goos string) string {
	switch goos {
	case "darwin":
		return "macOS has Chinese fonts built in; if they were removed, add Chinese in System Settings → General → Language & Region."
	case "windows":
		return "Add the Chinese (Simplified) supplemental fonts in Settings → Apps → Optional features."
	}
	return "Install a CJK font, for example: sudo apt install fonts-noto-cjk (Debian, Ubuntu), " +
		"sudo dnf install google-noto-sans-cjk-fonts (Fedora), sudo pacman -S noto-fonts-cjk (Arch). Then restart Engram."
}

// The font notices are in English whatever the window's language: without
// the font, their Chinese would be empty boxes too (and FYNE_FONT is for
// people who read its English documentation).
const (
	noFontTitle = "Chinese characters cannot be shown"
	noFontText  = "No font with Chinese characters was found on this computer, so Chinese text shows as empty boxes."
)

// fontNotice is the notice's title and text for what the check found, ""
// for none.
func fontNotice(st fontState, goos string) (title, text string) {
	switch {
	case !st.covered:
		text = noFontText + "\n\n" + fontAdvice(goos)
		if st.ttc {
			text += "\n\n" + ttcText
		}
		return noFontTitle, text
	case st.ttc:
		return "FYNE_FONT is not used", ttcText
	}
	return "", ""
}

// ttcText explains why FYNE_FONT cannot name a font collection.
const ttcText = "FYNE_FONT names a font collection (.ttc), which Fyne cannot load: point it at a single .ttf or .otf font, or unset it (Fyne finds installed fonts by itself)."

// checkFonts runs the font check once, in the background, and shows the
// notice if there is one and it was not shown before.
func (u *UI) checkFonts() {
	c := u.fonts
	if c.Skip {
		return
	}
	goos := c.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	prefs := fyne.CurrentApp().Preferences()
	if prefs.Bool(fontNoticeKey) {
		return
	}
	u.bg(func() func() {
		title, text := fontNotice(c.check(), goos)
		if text == "" {
			return nil
		}
		return func() { u.showFontNotice(title, text) }
	})
}

// showFontNotice shows the notice, and remembers it was shown. Its button
// reads OK in any language, like its text.
func (u *UI) showFontNotice(title, text string) {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom(title, "OK", l, u.w)
	d.Resize(fyne.NewSize(min(560, u.w.Canvas().Size().Width-20), 0))
	d.SetOnClosed(func() { fyne.CurrentApp().Preferences().SetBool(fontNoticeKey, true) })
	u.fontNotice = d
	u.showDialog(d)
}
