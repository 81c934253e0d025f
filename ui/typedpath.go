package ui

import (
	"errors"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// typeFolder asks for a project folder's path, typed or pasted, for when
// the folder dialog is slower than knowing the path. The agent checks
// that the folder exists when it pins it.
func (t *toolbar) typeFolder() {
	u := t.u
	e := u.dialogEntry()
	e.SetPlaceHolder(lang.L("/path/to/project or ~/project"))
	e.Validator = func(s string) error {
		_, err := expandPath(s, u.home)
		return err
	}
	d := dialog.NewForm(lang.L("Project folder"), lang.L("Pin folder"), lang.L("Cancel"),
		[]*widget.FormItem{widget.NewFormItem(lang.L("Folder"), e)}, func(ok bool) {
			if !ok {
				return
			}
			if dir, err := expandPath(e.Text, u.home); err == nil {
				u.pinProject(dir)
			}
		}, u.w)
	submitOnEnter(d, &e.Entry)
	d.Resize(fyne.NewSize(min(520, u.w.Canvas().Size().Width-20), d.MinSize().Height))
	u.showDialog(d)
	u.w.Canvas().Focus(e)
}

// expandPath is the folder path s names: ~ and ~/… are under home; it
// must be a full path once expanded.
func expandPath(s, home string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", errors.New(lang.L("Type the folder's path."))
	case home != "" && (s == "~" || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, `~\`)):
		s = filepath.Join(home, s[1:])
	}
	if !filepath.IsAbs(s) {
		return "", errors.New(lang.L("Type the folder's full path (or one that starts with ~)."))
	}
	return filepath.Clean(s), nil
}
