package memory_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

func TestSecret(t *testing.T) {
	secrets := []string{
		"My AWS key is AKIAIOSFODNN7EXAMPLE for the staging account.",
		"use sk-proj-4fG7hJ2kL9mN3pQ8rS1tU6vW0xY5zA",
		"the token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
		"Slack bot: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
		"-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA",
		"session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"My password is hunter2!",
		"the wifi password: CorrectHorse",
		"我的密码是abc12345",
		"服务器密码：Xy9#kd82",
		"API key = 9f8e7d6c5b4a",
		"export TOKEN=Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2RlZg9X",
		"AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1v",
		"sk_live_51H8xYzAbCdEfGhIjKlMnOp",
	}
	for _, s := range secrets {
		if what, ok := memory.Secret(s); !ok {
			t.Errorf("Secret(%q) = false, want a secret", s)
		} else if what == "" {
			t.Errorf("Secret(%q) says nothing about what it found", s)
		}
	}
	plain := []string{
		"The user prefers tabs over spaces in Go code.",
		"The password is stored in 1Password.",
		"用户喜欢喝绿茶。",
		"The release commit is 3f2a9c1e5b7d4f6a8c0e2b4d6f8a1c3e5b7d9f0a.",
		"The build ID is 123e4567-e89b-12d3-a456-426614174000.",
		"Project path: /home/user/src/github.com/example/engram-desktop-app",
		"The user's password manager is Bitwarden; a password is never to be saved.",
		"Use internationalization_and_localization_helpers for strings.",
		"The task-sk-list is long", // "sk-" inside a word
	}
	for _, s := range plain {
		if what, ok := memory.Secret(s); ok {
			t.Errorf("Secret(%q) = %s, want none", s, what)
		}
	}
}

func TestStoreRefusesSecretsFromModelAndDistillation(t *testing.T) {
	s := memory.NewInMemory(memory.Options{})
	for _, src := range []memory.Source{memory.SourceAuto, memory.SourceTool} {
		_, _, err := s.Add(memory.Entry{Text: "My AWS key is AKIAIOSFODNN7EXAMPLE", Source: src})
		if !errors.Is(err, memory.ErrSecret) {
			t.Errorf("source %s: err = %v, want ErrSecret", src, err)
		}
		if _, err := s.Supersede("x", memory.Entry{Text: "密码是abc12345", Source: src}); !errors.Is(err, memory.ErrSecret) {
			t.Errorf("supersede, source %s: err = %v, want ErrSecret", src, err)
		}
	}
	if s.Len() != 0 {
		t.Errorf("%d memories stored", s.Len())
	}
	// A person may keep one on purpose (the CLI and the inspector ask first).
	if _, _, err := s.Add(memory.Entry{Text: "The door code is 4711, password: tulip77", Source: memory.SourceUser}); err != nil {
		t.Errorf("a person's confirmed add was refused: %v", err)
	}
}

// FuzzSecret checks that Secret never panics, always says what it found,
// and gives the same answer twice.
func FuzzSecret(f *testing.F) {
	f.Add("My AWS key is AKIAIOSFODNN7EXAMPLE")
	f.Add("密码是abc12345")
	f.Add("plain text")
	f.Add("\x84密码") // an invalid byte before a name once broke the offsets
	cases := loadSecretCases(f)
	for _, c := range cases.Categories {
		for _, s := range c.Texts {
			f.Add(s)
		}
	}
	for _, s := range cases.Ordinary {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		what, ok := memory.Secret(s)
		if ok != (what != "") {
			t.Fatalf("Secret(%q) = %q, %v", s, what, ok)
		}
		if what2, ok2 := memory.Secret(s); what2 != what || ok2 != ok {
			t.Fatalf("Secret(%q) = %q, %v, then %q, %v", s, what, ok, what2, ok2)
		}
	})
}

// TestSecretHugeInput checks that Secret reads a text far longer than any
// memory, made of what its rules look for but holding no secret, in
// bounded time.
func TestSecretHugeInput(t *testing.T) {
	unit := strings.Join(loadSecretCases(t).Ordinary, " ") + " key= token: ey s. sk- AKIA Ab12 Cd34 -----BEGIN postgres://u:@h "
	size := 1 << 20
	if testing.Short() {
		size = 256 << 10
	}
	text := strings.Repeat(unit, size/len(unit))
	start := time.Now()
	if what, ok := memory.Secret(text); ok {
		t.Errorf("Secret of %d bytes = %s, want none", len(text), what)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Secret of %d bytes took %v", len(text), d)
	}
}
