package ui

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

var escKey = &fyne.KeyEvent{Name: fyne.KeyEscape}

// pressEscape presses Esc as the window's driver does: the focused widget
// gets it, or the canvas when none has the focus.
func pressEscape(h *harness) {
	if f := h.w.Canvas().Focused(); f != nil {
		f.TypedKey(escKey)
		return
	}
	h.w.Canvas().OnTypedKey()(escKey)
}

// Esc closes Settings and every dialog, whether the focus is in one of its
// fields or nowhere, and closing it is cancelling it.
func TestEscapeClosesDialogs(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.NewChat() })
	cfg := h.fb.Config()
	for _, tc := range []struct {
		name string
		open func()
	}{
		{"settings", h.u.openSettings},
		{"settings, typing in the endpoint", func() {
			h.u.openSettings()
			test.Type(h.u.settings.endpoint, "/changed")
			h.w.Canvas().Focus(h.u.settings.endpoint)
		}},
		{"settings, in the API key", func() {
			h.u.openSettings()
			h.w.Canvas().Focus(h.u.settings.key)
		}},
		{"settings, in the model", func() {
			h.u.openSettings()
			h.w.Canvas().Focus(h.u.settings.model)
		}},
		{"rename", func() { h.u.list.rename(h.u.chats[0]) }},
		{"delete chat", func() { h.u.list.remove(h.u.chats[0]) }},
		{"error", func() { h.u.showError("Could not do it", errors.New("it broke")) }},
		{"AGENTS.md", func() { h.u.showInstructions("", "/tmp/AGENTS.md", "text") }},
	} {
		tc.open()
		h.settle()
		if h.w.Canvas().Overlays().Top() == nil {
			t.Fatalf("%s: no dialog opened", tc.name)
		}
		pressEscape(h)
		h.settle()
		if top := h.w.Canvas().Overlays().Top(); top != nil {
			t.Errorf("%s: Esc left the dialog open", tc.name)
			top.Hide()
		}
	}
	if h.u.settingsOpen || h.u.settings != nil {
		t.Error("the settings think they are open")
	}
	if got := h.fb.Config(); got.BaseURL != cfg.BaseURL {
		t.Errorf("Esc saved the settings: endpoint %q", got.BaseURL)
	}
	if len(h.u.chats) != 1 || h.u.chats[0].Title != "" {
		t.Errorf("Esc changed the chats: %+v", h.u.chats)
	}
}

// The window's shortcuts do nothing while a dialog is open; once it is
// closed they work again.
func TestShortcutsWaitBehindDialogs(t *testing.T) {
	h := newHarness(t, nil)
	newChat := &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	search := &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault}
	h.u.openSettings()
	h.settle()
	if !h.u.shortcut(newChat) || !h.u.shortcut(search) {
		t.Error("the window's shortcuts are not taken (an entry of the dialog would act on them)")
	}
	h.settle()
	if len(h.u.chats) != 1 {
		t.Errorf("Ctrl+N behind the settings made a chat: %d chats", len(h.u.chats))
	}
	if h.w.Canvas().Focused() == h.u.insp.search {
		t.Error("Ctrl+F behind the settings focused the memory search")
	}
	pressEscape(h)
	h.settle()
	h.u.shortcut(newChat)
	h.settle()
	if len(h.u.chats) != 2 {
		t.Errorf("Ctrl+N after the settings closed: %d chats, want 2", len(h.u.chats))
	}
}

// The API key field hides what is typed; its eye shows it and hides it
// again.
func TestKeyFieldReveals(t *testing.T) {
	h := newHarness(t, nil)
	h.u.openSettings()
	h.settle()
	key := h.u.settings.key
	test.Type(key, "sk-new")
	eye := objects[*revealer](h.w.Canvas().Overlays().Top())
	if !key.Password || len(eye) != 1 {
		t.Fatalf("the key field: password %v, %d eyes", key.Password, len(eye))
	}
	test.Tap(eye[0])
	if key.Password || h.w.Canvas().Focused() != key {
		t.Errorf("after a tap on the eye: password %v, focus on %T", key.Password, h.w.Canvas().Focused())
	}
	test.Tap(eye[0])
	if !key.Password {
		t.Error("a second tap does not hide the key")
	}
}

// Ctrl+/ opens the sheet of shortcuts, which names each of the window's
// shortcuts; Esc closes it.
func TestShortcutSheet(t *testing.T) {
	h := newHarness(t, nil)
	if !h.u.shortcut(&desktop.CustomShortcut{KeyName: fyne.KeySlash, Modifier: fyne.KeyModifierShortcutDefault}) {
		t.Fatal("Ctrl+/ is not a shortcut")
	}
	h.settle()
	top := h.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Ctrl+/ opened nothing")
	}
	shown := shownText(top)
	for _, k := range append([]fyne.KeyName{fyne.KeySlash}, windowKeys...) {
		if !strings.Contains(shown, shortcutName(k)) {
			t.Errorf("the sheet does not name %s:\n%s", shortcutName(k), shown)
		}
	}
	pressEscape(h)
	h.settle()
	if h.w.Canvas().Overlays().Top() != nil {
		t.Error("Esc left the sheet open")
	}
}

// The delete-chat question has no "?" drawn behind its text, which a long
// title ran into; its buttons say what they do.
func TestDeleteChatDialogHasNoIcon(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		c, _ := fb.NewChat()
		fb.with(c.ID, func(c *Chat) { c.Title = "How do I deploy the blue-green pipeline on the staging cluster?" })
	})
	h.u.list.remove(h.u.chats[0])
	h.settle()
	top := h.w.Canvas().Overlays().Top()
	for _, img := range objects[*canvas.Image](top) {
		if img.Resource != nil && strings.Contains(img.Resource.Name(), "question") {
			t.Errorf("the dialog draws %s", img.Resource.Name())
		}
	}
	button(t, top, "Cancel")
	overlayButton(t, h, "Delete")
	h.settle()
	if len(h.u.chats) != 1 || h.u.chats[0].Title != "" {
		t.Errorf("after Delete the chats are %+v, want one new chat", h.u.chats)
	}
}
