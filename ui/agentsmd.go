package ui

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
)

// instructionsEditor is the dialog that edits one AGENTS.md.
type instructionsEditor struct {
	path string
	text *shortcutEntry
	d    *dialog.CustomDialog
}

// editInstructions opens an editor for the AGENTS.md of project folder dir,
// or the global one when dir is "". The agent reads the file in the
// background; a missing file opens empty and is created by Save.
func (u *UI) editInstructions(dir string) {
	u.bg(func() func() {
		f := instructionsOf(u.b.Instructions(dir), dir)
		text, err := "", errors.New(lang.L("no AGENTS.md path is known"))
		if f.Path != "" {
			text, err = u.b.ReadInstructions(f.Path)
		}
		return func() {
			if err != nil {
				u.showError(lang.L("Could not open AGENTS.md"), err)
				return
			}
			u.showInstructions(dir, f.Path, text)
		}
	})
}

// showInstructions shows the editor of the file at path holding text.
func (u *UI) showInstructions(dir, path, text string) {
	ed := &instructionsEditor{path: path, text: u.dialogEntry()}
	ed.text.MultiLine, ed.text.Wrapping = true, fyne.TextWrapWord
	ed.text.SetText(text)
	ed.text.SetPlaceHolder(lang.L("Instructions Engram follows in every chat, in Markdown."))
	title := lang.L("Global instructions (AGENTS.md)")
	if dir != "" {
		title = lang.L("Project instructions: {{.Folder}}", map[string]any{"Folder": baseName(dir)})
	}
	hint := captionLabel(lang.L("{{.Path}} · used from the next message after saving; at most 64 KiB is used.",
		map[string]any{"Path": shortPath(path, u.home)}))
	save := widget.NewButton(lang.L("Save"), nil)
	save.Importance = widget.HighImportance
	cancel := widget.NewButton(lang.L("Cancel"), nil)
	body := container.NewBorder(nil, hint, nil, nil, ed.text)
	ed.d = dialog.NewCustomWithoutButtons(title, body, u.w)
	ed.d.SetButtons([]fyne.CanvasObject{cancel, save})
	cancel.OnTapped = ed.d.Hide
	save.OnTapped = func() {
		ed.d.Hide()
		u.saveInstructions(ed.path, ed.text.Text)
	}
	size := u.w.Canvas().Size()
	ed.d.Resize(fyne.NewSize(min(680, size.Width-20), min(480, size.Height-20)))
	u.instrEd = ed
	u.showDialog(ed.d)
	u.w.Canvas().Focus(ed.text)
}

// saveInstructions has the agent save text as the AGENTS.md at path, on the
// worker.
func (u *UI) saveInstructions(path, text string) {
	u.write(func() func() {
		err := u.b.SaveInstructions(path, text)
		return func() {
			if err != nil {
				u.showError(lang.L("Could not save AGENTS.md"), err)
				return
			}
			u.bar.loadInstructions()
		}
	})
}

// instructionsOf is the file of info the indicator and editor use for dir.
func instructionsOf(info agent.InstructionsInfo, dir string) agent.InstructionFile {
	if dir != "" {
		return info.Project
	}
	return info.Global
}
