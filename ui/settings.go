package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
)

// settingsForm holds the settings dialog's fields.
type settingsForm struct {
	endpoint *widget.Entry
	key      *widget.Entry
	model    *widget.SelectEntry
	status   *caption
	recall   *widget.Check
	distill  *widget.Check
	topK     *widget.Entry
	budget   *widget.Entry
}

// newSettingsForm fills the fields from c.
func newSettingsForm(c agent.Config) *settingsForm {
	f := &settingsForm{}
	f.endpoint = widget.NewEntry()
	f.endpoint.SetPlaceHolder("http://127.0.0.1:11434/v1")
	f.endpoint.SetText(c.BaseURL)
	f.endpoint.Validator = validateURL
	f.key = widget.NewPasswordEntry()
	if c.APIKey != "" {
		f.key.SetPlaceHolder(c.MaskedKey() + " (leave empty to keep)")
	} else {
		f.key.SetPlaceHolder("none (local servers need no key)")
	}
	f.model = widget.NewSelectEntry(nil)
	f.model.SetPlaceHolder("e.g. qwen2.5:7b")
	f.model.SetText(c.Model)
	f.status = captionLabel("")
	f.recall = widget.NewCheck("Recall memories automatically in new chats", nil)
	f.recall.SetChecked(c.AutoRecall)
	f.distill = widget.NewCheck("Save memories from each answer (distillation)", nil)
	f.distill.SetChecked(c.Distill)
	f.topK = widget.NewEntry()
	f.topK.SetText(strconv.Itoa(c.RecallTopK))
	f.topK.Validator = validateInt(1, 50)
	f.budget = widget.NewEntry()
	f.budget.SetText(strconv.Itoa(c.RecallBudget))
	f.budget.Validator = validateInt(200, 100000)
	return f
}

func validateURL(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("an http:// or https:// address, e.g. http://127.0.0.1:11434/v1")
	}
	return nil
}

func validateInt(min, max int) func(string) error {
	return func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < min || n > max {
			return fmt.Errorf("a number from %d to %d", min, max)
		}
		return nil
	}
}

// config returns c changed by the form, or the first invalid field's error.
func (f *settingsForm) config(c agent.Config) (agent.Config, error) {
	for _, e := range []*widget.Entry{f.endpoint, f.topK, f.budget} {
		if err := e.Validate(); err != nil {
			return c, err
		}
	}
	c.BaseURL = strings.TrimSpace(f.endpoint.Text)
	if k := strings.TrimSpace(f.key.Text); k != "" {
		c.APIKey = k
	}
	c.Model = strings.TrimSpace(f.model.Text)
	c.AutoRecall = f.recall.Checked
	c.Distill = f.distill.Checked
	c.RecallTopK, _ = strconv.Atoi(strings.TrimSpace(f.topK.Text))
	c.RecallBudget, _ = strconv.Atoi(strings.TrimSpace(f.budget.Text))
	return c, nil
}

// items lays the form out.
func (f *settingsForm) items() []*widget.FormItem {
	endpoint := widget.NewFormItem("Endpoint", f.endpoint)
	endpoint.HintText = "Any OpenAI-compatible server (Ollama, LM Studio, vLLM, OpenAI)"
	key := widget.NewFormItem("API key", f.key)
	model := widget.NewFormItem("Model", container.NewVBox(f.model, f.status))
	topK := widget.NewFormItem("Recall top-k", f.topK)
	topK.HintText = "Memories added to each question at most"
	budget := widget.NewFormItem("Recall budget", f.budget)
	budget.HintText = "Characters of memory added to each question at most"
	return []*widget.FormItem{endpoint, key, model,
		widget.NewFormItem("", f.recall), widget.NewFormItem("", f.distill), topK, budget}
}

// openSettings shows the settings dialog. The model list comes from the
// endpoint when it answers.
func (u *UI) openSettings() {
	if u.settingsOpen {
		return
	}
	u.settingsOpen = true
	f := newSettingsForm(u.cfg)
	d := dialog.NewForm("Settings", "Save", "Cancel", f.items(), func(ok bool) {
		u.settingsOpen = false
		if !ok {
			return
		}
		c, err := f.config(u.cfg)
		if err != nil {
			dialog.ShowError(err, u.w)
			return
		}
		u.saveConfig(c)
	}, u.w)
	d.Resize(fyne.NewSize(600, d.MinSize().Height))
	d.Show()
	if u.cfg.BaseURL == "" {
		f.status.SetText("Set the endpoint, save, and the models it offers will be listed here.")
		u.w.Canvas().Focus(f.endpoint)
		return
	}
	f.status.SetText("Asking the endpoint for its models…")
	u.bg(func() func() {
		ctx, cancel := context.WithTimeout(u.ctx, 5*time.Second)
		defer cancel()
		models, err := u.b.Models(ctx)
		return func() {
			if err != nil {
				f.status.SetText("Could not list models: " + oneLine(err.Error(), 160))
				return
			}
			f.model.SetOptions(models)
			f.status.SetText(fmt.Sprintf("%d models available at this endpoint.", len(models)))
		}
	})
}

// saveConfig applies c and saves it in the background. A failed save is
// undone unless a later one was asked for.
func (u *UI) saveConfig(c agent.Config) {
	old := u.cfg
	u.cfgSave.start(old)
	u.cfg = c
	u.bar.setConfig(c)
	u.write(func() func() {
		err := u.b.SetConfig(c)
		return func() {
			back, undo := u.cfgSave.end(c, err)
			if err != nil {
				if undo {
					u.cfg = back
					u.bar.setConfig(back)
					if back.BaseURL != c.BaseURL || back.APIKey != c.APIKey {
						u.bar.loadModels()
					}
				}
				u.showError("Could not save the settings", err)
				return
			}
			if c.BaseURL != old.BaseURL || c.APIKey != old.APIKey {
				u.bar.loadModels()
			}
		}
	})
}
