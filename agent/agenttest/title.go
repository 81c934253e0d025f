package agenttest

import (
	"net/http"

	"engram/agent/prompts"
)

// PushTitle appends replies to the script of title requests (those whose
// system prompt is prompts.Title): each takes the next one, apart from the
// chat requests' script. With none scripted a title request is answered
// 404, so the chat keeps its first title.
func (f *Fake) PushTitle(replies ...Reply) {
	f.mu.Lock()
	f.titles = append(f.titles, replies...)
	f.mu.Unlock()
}

// TitleRequests returns the title requests received so far, oldest first
// (Requests does not list them).
func (f *Fake) TitleRequests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.titleReqs...)
}

// IsTitle reports whether the request asks for a chat's title.
func (r Request) IsTitle() bool {
	return len(r.Messages) > 0 && r.Messages[0].Role == "system" && r.Messages[0].Content == prompts.Title
}

// nextTitle records a title request and returns its scripted reply (a 404
// when none is scripted).
func (f *Fake) nextTitle(req Request) Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.titleReqs = append(f.titleReqs, req)
	if len(f.titles) == 0 {
		return Reply{Status: http.StatusNotFound, Message: "no title scripted"}
	}
	reply := f.titles[0]
	f.titles = f.titles[1:]
	return reply
}
