package chat

import (
	"strings"
	"testing"
)

func TestTitleFrom(t *testing.T) {
	tests := map[string]string{
		"":                               "New chat",
		" \n\t":                          "New chat",
		"Hello":                          "Hello",
		"  first line\nsecond":           "first line",
		"tabs\tand   spaces":             "tabs and spaces",
		"What is the capital of France?": "What is the capital of France",
		"Can you help me write a poem about the sea":   "Can you help me write a…",
		strings.Repeat("word ", 30):                    "word word word word word word…",
		"Hi! Can you explain goroutines to me?":        "Hi! Can you explain goroutines to…",
		"Fix the bug. It crashes on start":             "Fix the bug",
		"Explain Go 1.26 iterators. Then examples":     "Explain Go 1.26 iterators",
		"Look at main.go and tell me why":              "Look at main.go and tell me…",
		"I use Go at work, and want to learn generics": "I use Go at work",
		"...": "New chat",
		// Chinese: about twelve characters, cut at the first sentence.
		"如何在Go中读取文件？我需要逐行处理。":   "如何在Go中读取文件",
		"请帮我写一首关于大海和月亮的诗歌，要有韵律": "请帮我写一首关于大海和月…",
		"你好": "你好",
		"我想学习机器学习，应该从哪里开始": "我想学习机器学习",
		// Mixed: an English word counts as two characters.
		"帮我用Go写一个HTTP server，支持TLS":       "帮我用Go写一个HTTP server",
		"用 Python 写一个 web scraper 抓取新闻标题": "用 Python 写一个 web scraper 抓取…",
	}
	for in, want := range tests {
		if got := TitleFrom(in); got != want {
			t.Errorf("TitleFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanTitle(t *testing.T) {
	tests := map[string]string{
		"Tabs versus spaces in Go":                   "Tabs versus spaces in Go",
		"\"Tabs versus spaces in Go.\"":              "Tabs versus spaces in Go",
		"Title: Tabs versus spaces\nMore words here": "Tabs versus spaces",
		"\n\n**Go formatting**\n":                    "Go formatting",
		"标题：「Go 语言的缩进」":                              "Go 语言的缩进",
		"《读取文件的方法》。":                                 "读取文件的方法",
		"“…”":                                        "",
		"":                                           "",
		strings.Repeat("long ", 20):                  "long long long long long long long long long long…",
	}
	for in, want := range tests {
		if got := CleanTitle(in); got != want {
			t.Errorf("CleanTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
