package agent

import (
	"context"
	"engram/agent/chat"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrMessageNotFound is returned for an unknown message ID.
var ErrMessageNotFound = errors.New("message not found")

// starter prepares chat c for a turn (under the chat store's lock) and
// returns what TurnStarted reports (Text is the message the turn answers);
// it sets ts.userID to the user message answered, and a continuation also
// fills in the answer so far.
type starter func(c *Chat, ts *turnState) (TurnStarted, error)

// find returns the index of message id in c, or an error.
func find(c *Chat, id string) (int, error) {
	if i := slices.IndexFunc(c.Messages, func(m Message) bool { return m.ID == id }); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("message %q of chat %s: %w", id, c.ID, ErrMessageNotFound)
}

// appendUser is the starter of Send: text becomes the chat's last message.
func (a *Agent) appendUser(text string) starter {
	return func(c *Chat, ts *turnState) (TurnStarted, error) {
		if c.Title == "" {
			c.Title = chat.TitleFrom(text)
			if !c.Temporary {
				ts.localTitle = c.Title // the model names the chat after the answer
			}
		}
		ts.userID = chat.NewMessageID()
		c.Messages = append(c.Messages, Message{ID: ts.userID, Role: RoleUser, Text: text, Time: a.now()})
		return TurnStarted{Text: text, UserID: ts.userID}, nil
	}
}

// Resend replaces the user message msgID with text and answers it: the
// messages from it on are kept in the chat's Branches and removed. It
// returns at once, like Send, with the same errors and ErrMessageNotFound.
func (a *Agent) Resend(ctx context.Context, chatID, msgID, text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("resend: the message is empty")
	}
	st := func(c *Chat, ts *turnState) (TurnStarted, error) {
		i, err := find(c, msgID)
		if err != nil {
			return TurnStarted{}, err
		}
		if c.Messages[i].Role != RoleUser {
			return TurnStarted{}, fmt.Errorf("message %s is not the person's", msgID)
		}
		c.BranchOff(i, a.now())
		ts.userID = chat.NewMessageID()
		c.Messages = append(c.Messages, Message{ID: ts.userID, Role: RoleUser, Text: text, Time: a.now()})
		return TurnStarted{Text: text, UserID: ts.userID, Replaces: msgID}, nil
	}
	return a.check(ctx, "resend", chatID, st)
}

// Regenerate answers again: for an answer msgID, the user message before
// it; for a user message, that message. The messages after the user
// message are kept in the chat's Branches and removed; the user message is
// not repeated. Retrying a failed answer is regenerating it. It returns at
// once, like Send.
func (a *Agent) Regenerate(ctx context.Context, chatID, msgID string) error {
	st := func(c *Chat, ts *turnState) (TurnStarted, error) {
		i, err := find(c, msgID)
		if err != nil {
			return TurnStarted{}, err
		}
		q := i
		for q >= 0 && c.Messages[q].Role != RoleUser {
			q--
		}
		if q < 0 {
			return TurnStarted{}, fmt.Errorf("message %s answers no message of the person", msgID)
		}
		var replaces string
		if q+1 < len(c.Messages) {
			replaces = c.Messages[q+1].ID
		}
		c.BranchOff(q+1, a.now())
		ts.userID = c.Messages[q].ID
		return TurnStarted{Text: c.Messages[q].Text, Replaces: replaces}, nil
	}
	return a.check(ctx, "regenerate", chatID, st)
}

// Continue asks the model to go on with the answer msgID, which must be
// the chat's last message and have text (one that was stopped, cut at the
// output limit, or failed midway). The new text is added to it. It
// returns at once, like Send.
func (a *Agent) Continue(ctx context.Context, chatID, msgID string) error {
	st := func(c *Chat, ts *turnState) (TurnStarted, error) {
		i, err := find(c, msgID)
		if err != nil {
			return TurnStarted{}, err
		}
		m := c.Messages[i]
		if i != len(c.Messages)-1 || m.Role != RoleAssistant || m.Text == "" {
			return TurnStarted{}, fmt.Errorf("message %s is not an answer that can be continued", msgID)
		}
		q := i
		for q >= 0 && c.Messages[q].Role != RoleUser {
			q--
		}
		ts.answerID, ts.userID, ts.prefix, ts.hits = m.ID, m.ReplyTo, m.Text, m.Recalled
		ts.answer.WriteString(m.Text)
		ts.reasoning.WriteString(m.Reasoning)
		ts.thinking = m.ThinkingTime
		ts.tools = append(ts.tools, m.Tools...)
		text := ""
		if q >= 0 {
			text = c.Messages[q].Text
			if ts.userID == "" {
				ts.userID = c.Messages[q].ID
			}
		}
		return TurnStarted{Text: text, Continues: m.ID}, nil
	}
	return a.check(ctx, "continue", chatID, st)
}

// check runs st's validation on a copy of the chat, so that a bad request
// fails at once, and then starts the turn (which prepares the chat again,
// under the lock).
func (a *Agent) check(ctx context.Context, op, chatID string, st starter) error {
	c, err := a.chats.Get(chatID)
	if err == nil {
		_, err = st(&c, &turnState{})
	}
	if err == nil {
		err = a.start(ctx, chatID, st)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// DeleteMessage removes message msgID from the chat. It fails with
// ErrTurnRunning while a turn runs in the chat.
func (a *Agent) DeleteMessage(chatID, msgID string) error {
	if a.Running(chatID) {
		return fmt.Errorf("delete message: %w", ErrTurnRunning)
	}
	var ferr error
	err := a.chats.Update(chatID, func(c *Chat) bool {
		i, err := find(c, msgID)
		if err != nil {
			ferr = err
			return false
		}
		c.Messages = slices.Delete(slices.Clone(c.Messages), i, i+1)
		c.Deleted = append(slices.Clip(c.Deleted), msgID)
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("delete message: %w", err)
	}
	return nil
}

// putAnswer adds the answer msg at the end of msgs, or, when it continues
// an answer, puts it in that answer's place.
func putAnswer(msgs []Message, msg Message, continued bool) []Message {
	if continued {
		if i := slices.IndexFunc(msgs, func(m Message) bool { return m.ID == msg.ID }); i >= 0 {
			msgs[i] = msg
			return msgs
		}
	}
	return append(msgs, msg)
}

// pinnedInPrompt returns the pinned memories that go into the prompt (the
// global ones, then the project's), as hits: all of them, since
// memory.RenderPinned drops none.
func (a *Agent) pinnedInPrompt(proj *projectState) []RecalledHit {
	es := a.global.pinnedEntries()
	n := len(es)
	if proj != nil && proj.store != nil {
		es = append(es, proj.store.pinnedEntries()...)
	}
	out := make([]RecalledHit, len(es))
	for i, e := range es {
		out[i].Entry, out[i].Scope = e, ScopeGlobal
		if i >= n {
			out[i].Scope = ScopeProject
		}
	}
	return out
}
