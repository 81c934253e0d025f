package llm

import "strings"

// thinkTags are the tags reasoning models open their content with when
// they think inline (Qwen3 and DeepSeek-R1 as many servers send them).
var thinkTags = []string{"think", "thinking", "reasoning"}

// ThinkSplitter splits streamed content into the reasoning that a
// <think>, <thinking> or <reasoning> tag at its very start holds (white
// space before the tag allowed) and the answer after the closing tag.
// Content that does not open with such a tag is all answer. Tags may be
// split across pieces: Write holds back what could still be the start of
// one until the next piece or Flush decides.
type ThinkSplitter struct {
	state   int    // splitStart, splitInside or splitAnswer
	pending string // held back: a possible tag start or end
	closer  string // "</think>" once inside
	skipWS  bool   // the answer's leading white space after the closer is dropped
}

const (
	splitStart = iota
	splitInside
	splitAnswer
)

// Write takes the next piece of content and returns the reasoning and
// answer text it completes.
func (s *ThinkSplitter) Write(piece string) (reasoning, text string) {
	s.pending += piece
	for {
		switch s.state {
		case splitStart:
			trimmed := strings.TrimLeft(s.pending, " \t\r\n")
			if trimmed == "" {
				return reasoning, text
			}
			if open, ok := openingTag(trimmed); ok {
				s.state, s.closer = splitInside, "</"+open[1:]
				s.pending = trimmed[len(open):]
				continue
			}
			if couldOpen(trimmed) {
				return reasoning, text
			}
			s.state = splitAnswer
		case splitInside:
			if i := strings.Index(s.pending, s.closer); i >= 0 {
				reasoning += s.pending[:i]
				s.pending = s.pending[i+len(s.closer):]
				s.state, s.skipWS = splitAnswer, true
				continue
			}
			keep := partialSuffix(s.pending, s.closer)
			reasoning += s.pending[:len(s.pending)-keep]
			s.pending = s.pending[len(s.pending)-keep:]
			return reasoning, text
		case splitAnswer:
			if s.skipWS {
				s.pending = strings.TrimLeft(s.pending, " \t\r\n")
				if s.pending == "" {
					return reasoning, text
				}
				s.skipWS = false
			}
			text += s.pending
			s.pending = ""
			return reasoning, text
		}
	}
}

// Flush ends the content and returns what was held back: the rest of an
// unclosed reasoning section, or text that only looked like a tag start.
func (s *ThinkSplitter) Flush() (reasoning, text string) {
	rest := s.pending
	s.pending = ""
	switch s.state {
	case splitInside:
		return rest, ""
	case splitStart:
		s.state = splitAnswer
		return "", rest
	}
	if s.skipWS {
		return "", ""
	}
	return "", rest
}

// openingTag returns the think tag s starts with ("<think>"…).
func openingTag(s string) (string, bool) {
	for _, t := range thinkTags {
		if tag := "<" + t + ">"; strings.HasPrefix(s, tag) {
			return tag, true
		}
	}
	return "", false
}

// couldOpen reports whether s may be the first bytes of a think tag.
func couldOpen(s string) bool {
	for _, t := range thinkTags {
		if tag := "<" + t + ">"; len(s) < len(tag) && strings.HasPrefix(tag, s) {
			return true
		}
	}
	return false
}

// partialSuffix is the length of the longest end of s that is a proper
// start of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
