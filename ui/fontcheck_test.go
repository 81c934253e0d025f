package ui

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// tinyFont is a minimal TrueType font (the head, maxp and cmap tables)
// whose character map has only r, enough for the font check to read.
func tinyFont(r rune) []byte {
	be := binary.BigEndian
	head := make([]byte, 54)
	be.PutUint32(head[0:], 0x00010000)
	be.PutUint32(head[12:], 0x5F0F3CF5)
	be.PutUint16(head[18:], 1000)
	maxp := make([]byte, 6)
	be.PutUint32(maxp[0:], 0x00005000)
	be.PutUint16(maxp[4:], 2)
	sub := make([]byte, 32) // format 4: the segment r→glyph 1, then the closing 0xFFFF
	be.PutUint16(sub[0:], 4)
	be.PutUint16(sub[2:], 32)
	be.PutUint16(sub[6:], 4)
	be.PutUint16(sub[8:], 4)
	be.PutUint16(sub[12:], 0)
	be.PutUint16(sub[14:], uint16(r))
	be.PutUint16(sub[16:], 0xFFFF)
	be.PutUint16(sub[20:], uint16(r))
	be.PutUint16(sub[22:], 0xFFFF)
	be.PutUint16(sub[24:], uint16(1-r))
	be.PutUint16(sub[26:], 1)
	cmap := append([]byte{0, 0, 0, 1, 0, 3, 0, 1, 0, 0, 0, 12}, sub...)
	tables := []struct {
		tag  string
		data []byte
	}{{"cmap", cmap}, {"head", head}, {"maxp", maxp}}
	var out bytes.Buffer
	hdr := make([]byte, 12+16*len(tables))
	be.PutUint32(hdr[0:], 0x00010000)
	be.PutUint16(hdr[4:], uint16(len(tables)))
	off := len(hdr)
	var body bytes.Buffer
	for k, tb := range tables {
		rec := hdr[12+16*k:]
		copy(rec, tb.tag)
		be.PutUint32(rec[8:], uint32(off+body.Len()))
		be.PutUint32(rec[12:], uint32(len(tb.data)))
		body.Write(tb.data)
		for body.Len()%4 != 0 {
			body.WriteByte(0)
		}
	}
	out.Write(hdr)
	out.Write(body.Bytes())
	return out.Bytes()
}

// fontDir makes a font folder holding a font with the given runes.
func fontDir(t *testing.T, files map[string]rune) string {
	t.Helper()
	dir := t.TempDir()
	for name, r := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, tinyFont(r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFontCheckFindsHan(t *testing.T) {
	latin := fontDir(t, map[string]rune{"truetype/Latin.ttf": 'A', "notes.txt": 'x'})
	han := fontDir(t, map[string]rune{"opentype/noto/SomeSC-Regular.otf": '中'})
	for _, tc := range []struct {
		name    string
		c       FontCheck
		covered bool
		ttc     bool
	}{
		{"no fonts", FontCheck{Dirs: []string{}}, false, false},
		{"latin only", FontCheck{Dirs: []string{latin}}, false, false},
		{"han in a second folder", FontCheck{Dirs: []string{latin, han}}, true, false},
		{"FYNE_FONT with han", FontCheck{Dirs: []string{latin}, FyneFont: filepath.Join(han, "opentype/noto/SomeSC-Regular.otf")}, true, false},
		{"FYNE_FONT a collection", FontCheck{Dirs: []string{han}, FyneFont: "/fonts/NotoSansCJK-Regular.ttc"}, true, true},
		{"missing folder", FontCheck{Dirs: []string{filepath.Join(latin, "nope")}}, false, false},
	} {
		st := tc.c.check()
		if st.covered != tc.covered || st.ttc != tc.ttc {
			t.Errorf("%s: %+v, want covered %v, ttc %v", tc.name, st, tc.covered, tc.ttc)
		}
	}
	if _, got := fontNotice(fontState{covered: false}, "linux"); !strings.Contains(got, "fonts-noto-cjk") {
		t.Errorf("the Linux notice does not name fonts-noto-cjk: %q", got)
	}
	if _, got := fontNotice(fontState{covered: true, ttc: true}, "linux"); !strings.Contains(got, ".ttc") || strings.Contains(got, "apt") {
		t.Errorf("the collection notice: %q", got)
	}
	if _, got := fontNotice(fontState{covered: true}, "darwin"); got != "" {
		t.Errorf("a notice with a font found: %q", got)
	}
	// Without a Chinese font the notice is in English even in Chinese.
	inChinese(t)
	title, text := fontNotice(fontState{covered: false, ttc: true}, "linux")
	if title != noFontTitle || !strings.HasPrefix(text, noFontText) || !strings.Contains(text, "FYNE_FONT names") {
		t.Errorf("the notice in a Chinese locale: %q: %q", title, text)
	}
}

func TestFontNoticeShownOnce(t *testing.T) {
	test.NewTempApp(t)
	latin := fontDir(t, map[string]rune{"Latin.ttf": 'A'})
	start := func() *harness {
		h := &harness{t: t, ready: make(chan struct{}, 1)}
		h.w = test.NewWindow(nil)
		h.w.Resize(fyne.NewSize(1200, 760))
		h.u = New(h.w, newFakeBackend(t), Options{Do: h.enqueue, Fonts: FontCheck{Dirs: []string{latin}, GOOS: "linux"}})
		h.u.Start()
		t.Cleanup(func() {
			h.u.cancel()
			h.settle()
			h.u.Close()
			h.w.Close()
		})
		h.settle()
		return h
	}
	h := start()
	if h.u.fontNotice == nil {
		t.Fatal("no notice on a machine without a Chinese font")
	}
	if text := allText(h.w.Canvas().Overlays().Top()); !strings.Contains(text, "fonts-noto-cjk") {
		t.Fatalf("the notice says:\n%s", text)
	}
	overlayButton(t, h, "OK")
	if h2 := start(); h2.u.fontNotice != nil {
		t.Fatal("the notice was shown a second time")
	}
}

// systemCJKCollection is an installed CJK font collection, "" when there is
// none (fonts-noto-cjk installs it).
func systemCJKCollection() string {
	p := "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func TestFileHasReadsACollection(t *testing.T) {
	t.Parallel() // shares nothing: no app, no globals
	p := systemCJKCollection()
	if p == "" {
		t.Skip("no CJK collection installed")
	}
	if !fileHas(p, han) {
		t.Errorf("%s: 中 not found", p)
	}
	if fileHas(p, 0x10FFFD) {
		t.Errorf("%s: a private-use rune found", p)
	}
}

// BenchmarkFileHasCollection measures the font check on one 20 MB CJK
// collection: B/op is what it reads into the heap.
func BenchmarkFileHasCollection(b *testing.B) {
	p := systemCJKCollection()
	if p == "" {
		b.Skip("no CJK collection installed")
	}
	b.ReportAllocs()
	for b.Loop() {
		if !fileHas(p, han) {
			b.Fatal("中 not found")
		}
	}
}
