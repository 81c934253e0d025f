package agent

import (
	"context"
	"time"

	"engram/agent/chat"
	"engram/agent/internal/textcut"
	"engram/agent/llm"
	"engram/agent/prompts"
	"engram/memory"
)

// titleTimeout bounds the call that names a chat: past it the chat keeps
// the title made from its first message.
const titleTimeout = 10 * time.Second

// titleExcerpt is how many bytes of the first message and of the answer the
// title call is sent.
const titleExcerpt = 1500

// nameChat asks the model once, through client (the turn's), for a short
// title of a chat after its first exchange (the user's message and the
// answer) and sets it, unless the chat's title is no longer local, the one
// its first message gave it: the person renamed it meanwhile. Any failure
// keeps the local title, silently. It reports ChatTitled when it set one.
func (a *Agent) nameChat(client llm.Completer, model, chatID, local, user, answer string) {
	ctx, cancel := context.WithTimeout(a.ctx, titleTimeout)
	defer cancel()
	reply, err := client.Complete(ctx, llm.Request{Model: model, Messages: []llm.Message{
		{Role: "system", Content: prompts.Title},
		{Role: "user", Content: textcut.UTF8(user, titleExcerpt)},
		{Role: "assistant", Content: textcut.UTF8(answer, titleExcerpt)},
	}}, nil)
	if err != nil || len(reply.ToolCalls) > 0 {
		return
	}
	title := chat.CleanTitle(reply.Text)
	if title == "" || title == local {
		return
	}
	if _, secret := memory.Secret(title); secret {
		return
	}
	set := false
	if err := a.chats.Update(chatID, func(c *Chat) bool {
		set = c.Title == local
		if set {
			c.Title = title
		}
		return set
	}); err != nil || !set {
		return
	}
	a.emit(ChatTitled{ChatID: chatID, Title: title})
}
