package memory_test

import (
	"strings"
	"testing"

	"engram/memory"
)

// benchMemory is a typical memory of about 200 bytes: no secret, but words
// and numbers of the kinds the detector looks at.
const benchMemory = "The user keeps the home server at 192.168.1.20 and its backups on the NAS; " +
	"they rotate passwords every 90 days, prefer Go 1.26 with tabs, and meet Kim at 10:30 on Mondays."

// benchLong is a 4 KiB memory text in English and Chinese.
var benchLong = func() string {
	parts := []string{
		benchMemory,
		"用户每周三晚上去健身房，喜欢喝绿茶，正在学习密码学课程。",
		"Fixed in commit a1b2c3d; see https://example.com/docs/setup?lang=en for the steps.",
		"The API token is kept in the keychain, never in notes.",
	}
	var b strings.Builder
	for i := 0; b.Len() < 4096; i++ {
		b.WriteString(parts[i%len(parts)])
		b.WriteByte(' ')
	}
	return b.String()[:4096]
}()

func benchmarkSecret(b *testing.B, text string) {
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if what, ok := memory.Secret(text); ok {
			b.Fatalf("flagged as %s", what)
		}
	}
}

func BenchmarkSecret200B(b *testing.B) { benchmarkSecret(b, benchMemory) }

func BenchmarkSecret4KiB(b *testing.B) { benchmarkSecret(b, benchLong) }
