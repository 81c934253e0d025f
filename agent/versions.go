package agent

import (
	"fmt"
)

// ShowVersion shows version versionID (see chat.Chat.Versions) of the
// messages from message msgID on, the first message of the version shown
// now: the chat goes on from the version shown, and the other is kept in
// its branches. It fails with ErrTurnRunning while a turn runs in the
// chat, and with ErrMessageNotFound or chat.ErrNoVersion for a message or
// version the chat does not have.
func (a *Agent) ShowVersion(chatID, msgID, versionID string) error {
	if a.Running(chatID) {
		return fmt.Errorf("show version: %w", ErrTurnRunning)
	}
	var ferr error
	err := a.chats.Update(chatID, func(c *Chat) bool {
		i, err := find(c, msgID)
		if err == nil {
			err = c.ShowVersion(i, versionID, a.now())
		}
		ferr = err
		return err == nil && msgID != versionID
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("show version: %w", err)
	}
	return nil
}
