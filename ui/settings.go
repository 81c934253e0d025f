package ui

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/agent/endpoint"
)

// modelsDelay is how long the settings wait after the last keystroke in the
// endpoint or key before they ask the endpoint for its models.
const modelsDelay = 300 * time.Millisecond

// settingsForm holds the settings dialog's fields.
type settingsForm struct {
	u        *UI
	src      agent.ConfigSources
	preset   *widget.Select
	endpoint *shortcutEntry
	key      *shortcutEntry
	model    *escSelectEntry
	status   *caption
	found    *caption
	language *widget.Select
	recall   *widget.Check
	capture  *widget.Select
	semantic *widget.Select
	topK     *shortcutEntry
	budget   *shortcutEntry
	agents   *widget.Button

	orig    agent.Config
	fetch   debouncer
	gen     int      // of the latest model list asked for
	fetched string   // endpoint and key of the list shown
	models  []string // the list shown
}

// newSettingsForm fills the fields from c; the values src names come from
// the environment and are shown read-only.
func newSettingsForm(u *UI, c agent.Config, src agent.ConfigSources) *settingsForm {
	f := &settingsForm{u: u, src: src, orig: c}
	names := make([]string, len(endpoint.Presets))
	for k, p := range endpoint.Presets {
		names[k] = p.Name
	}
	f.preset = widget.NewSelect(names, f.presetChosen)
	f.preset.PlaceHolder = lang.L("Fill in a common server…")
	f.endpoint = u.dialogEntry()
	f.endpoint.SetPlaceHolder("http://127.0.0.1:11434/v1")
	f.endpoint.SetText(c.BaseURL)
	f.endpoint.Validator = validateURL
	f.key = u.dialogPasswordEntry()
	switch {
	case src.APIKey != "":
		f.key.SetPlaceHolder(c.MaskedKey())
	case c.APIKey != "":
		f.key.SetPlaceHolder(lang.L("{{.Key}} (leave empty to keep)", map[string]any{"Key": c.MaskedKey()}))
	default:
		f.key.SetPlaceHolder(lang.L("none (local servers need no key)"))
	}
	f.model = newEscSelectEntry(u.escape)
	f.model.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	f.model.SetPlaceHolder(lang.L("e.g. qwen2.5:7b"))
	f.model.SetText(c.Model)
	f.status = captionLabel("")
	f.found = captionLabel("")
	f.found.Hide()
	if src.Detected {
		f.found.SetText(detectedText(c.BaseURL))
		f.found.Show()
	}
	f.language = widget.NewSelect(languageNames(), nil)
	f.language.SetSelected(languageChoice(c.Language))
	f.recall = widget.NewCheck(lang.L("Recall memories automatically in new chats"), nil)
	f.recall.SetChecked(c.AutoRecall)
	f.capture = widget.NewSelect(captureNames(), nil)
	f.capture.SetSelected(captureName(c.CaptureSetting()))
	f.semantic = newSemanticSelect(c)
	f.topK = u.dialogEntry()
	f.topK.SetText(strconv.Itoa(c.RecallTopK))
	f.topK.Validator = validateInt(1, 50)
	f.budget = u.dialogEntry()
	f.budget.SetText(strconv.Itoa(c.RecallBudget))
	f.budget.Validator = validateInt(200, 100000)
	f.agents = widget.NewButton(lang.L("Edit the global AGENTS.md…"), func() { u.editInstructions("") })
	for _, ro := range []struct {
		env string
		w   fyne.Disableable
	}{{src.BaseURL, f.endpoint}, {src.APIKey, f.key}, {src.Model, f.model}} {
		if ro.env != "" {
			ro.w.Disable()
		}
	}
	if src.BaseURL != "" {
		f.preset.Disable()
	}
	f.endpoint.OnChanged = func(string) { f.endpointChanged() }
	f.key.OnChanged = func(string) { f.endpointChanged() }
	return f
}

// detectedText says which local server was found automatically.
func detectedText(baseURL string) string {
	host := baseURL
	if pu, err := url.Parse(baseURL); err == nil && pu.Host != "" {
		host = pu.Host
	}
	if p, ok := endpoint.PresetOf(baseURL); ok {
		return lang.L("Using {{.Server}} at {{.Host}} (found on this computer)", map[string]any{"Server": p.Name, "Host": host})
	}
	return lang.L("Using the server at {{.Host}} (found on this computer)", map[string]any{"Host": host})
}

// fromEnv is the hint of a value that comes from an environment variable.
func fromEnv(name string) string {
	return lang.L("From the environment variable {{.Name}}: read-only here; unset it to change this.",
		map[string]any{"Name": name})
}

func validateURL(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New(lang.L("an http:// or https:// address, e.g. http://127.0.0.1:11434/v1"))
	}
	return nil
}

func validateInt(min, max int) func(string) error {
	return func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < min || n > max {
			return errors.New(lang.L("a number from {{.Min}} to {{.Max}}", map[string]any{"Min": min, "Max": max}))
		}
		return nil
	}
}

// presetChosen fills the endpoint of a preset.
func (f *settingsForm) presetChosen(name string) {
	for _, p := range endpoint.Presets {
		if p.Name == name {
			f.endpoint.SetText(p.BaseURL)
		}
	}
}

// endpointChanged asks the typed endpoint for its models once typing
// pauses.
func (f *settingsForm) endpointChanged() {
	f.u.debounce(&f.fetch, modelsDelay, f.loadModels)
}

// apiKey is the key the form would save: the typed one, else the saved one.
func (f *settingsForm) apiKey() string {
	if k := strings.TrimSpace(f.key.Text); k != "" {
		return k
	}
	return f.orig.APIKey
}

// loadModels lists the models of the endpoint and key in the form, in the
// background, and offers them; a model the endpoint does not list gives
// way to the endpoint's default.
func (f *settingsForm) loadModels() {
	base := strings.TrimSpace(f.endpoint.Text)
	key := f.apiKey()
	if base == "" || validateURL(base) != nil {
		f.status.SetText(lang.L("Type the endpoint and its models will be listed here."))
		return
	}
	if base+"\x00"+key == f.fetched {
		return
	}
	f.gen++
	gen := f.gen
	u := f.u
	f.status.SetText(lang.L("Asking the endpoint for its models…"))
	u.bg(func() func() {
		ctx, cancel := context.WithTimeout(u.ctx, 5*time.Second)
		defer cancel()
		models, err := u.b.ModelsAt(ctx, base, key)
		return func() {
			if gen != f.gen {
				return
			}
			if err != nil {
				f.status.SetText(lang.L("Could not list models: {{.Err}}", map[string]any{"Err": oneLine(err.Error(), 160)}))
				return
			}
			f.fetched = base + "\x00" + key
			f.models = models
			f.model.SetOptions(models)
			f.semantic.SetOptions(semanticOptions(models, f.semantic.Selected))
			f.status.SetText(count("{{.Count}} model available at this endpoint.", len(models)))
			if m := strings.TrimSpace(f.model.Text); f.src.Model == "" && len(models) > 0 && !slices.Contains(models, m) {
				f.model.SetText(endpoint.DefaultModel(models))
			}
		}
	})
}

// config returns c changed by the form, or the first invalid field's error.
func (f *settingsForm) config(c agent.Config) (agent.Config, error) {
	for _, e := range []*shortcutEntry{f.endpoint, f.topK, f.budget} {
		if err := e.Validate(); err != nil {
			return c, err
		}
	}
	c.BaseURL = strings.TrimSpace(f.endpoint.Text)
	if k := strings.TrimSpace(f.key.Text); k != "" {
		c.APIKey = k
	}
	c.Model = strings.TrimSpace(f.model.Text)
	c.Language = languageCode(f.language.Selected)
	c.AutoRecall = f.recall.Checked
	c.Capture = captureOf(f.capture.Selected)
	c.SemanticRecall = semanticModel(f.semantic.Selected)
	c.Distill = c.Capture != agent.CaptureOff
	c.RecallTopK, _ = strconv.Atoi(strings.TrimSpace(f.topK.Text))
	c.RecallBudget, _ = strconv.Atoi(strings.TrimSpace(f.budget.Text))
	return c, nil
}

// items lays the form out.
func (f *settingsForm) items() []*widget.FormItem {
	preset := widget.NewFormItem(lang.L("Server"), f.preset)
	endpoint := widget.NewFormItem(lang.L("Endpoint"), container.NewVBox(f.endpoint, f.found))
	endpoint.HintText = lang.L("Any OpenAI-compatible server (Ollama, LM Studio, vLLM, OpenAI)")
	if f.src.BaseURL != "" {
		endpoint.HintText = fromEnv(f.src.BaseURL)
	}
	key := widget.NewFormItem(lang.L("API key"), f.key)
	if f.src.APIKey != "" {
		key.HintText = fromEnv(f.src.APIKey)
	}
	model := widget.NewFormItem(lang.L("Model"), container.NewVBox(f.model, f.status))
	if f.src.Model != "" {
		model.HintText = fromEnv(f.src.Model)
	}
	language := widget.NewFormItem(lang.L("Language"), f.language)
	language.HintText = lang.L("Applies the next time Engram starts")
	topK := widget.NewFormItem(lang.L("Recall top-k"), f.topK)
	topK.HintText = lang.L("Memories added to each question at most")
	budget := widget.NewFormItem(lang.L("Recall budget"), f.budget)
	budget.HintText = lang.L("Characters of memory added to each question at most")
	capture := widget.NewFormItem(lang.L("Save memories"), f.capture)
	capture.HintText = lang.L("What becomes of the memories found in each answer; a chat can choose its own")
	semantic := widget.NewFormItem(lang.L("Semantic recall"), f.semantic)
	semantic.HintText = lang.L("Finds memories by meaning; an endpoint's embedding model may find more")
	return []*widget.FormItem{preset, endpoint, key, model, language,
		widget.NewFormItem("", f.recall), capture, semantic, topK, budget,
		widget.NewFormItem(lang.L("Instructions"), f.agents), widget.NewFormItem(lang.L("Tools"), toolsButton(f.u))}
}

// openSettings shows the settings dialog. The model list comes from the
// endpoint as soon as one is set, before anything is saved.
func (u *UI) openSettings() {
	if u.settingsOpen {
		return
	}
	u.settingsOpen = true
	f := newSettingsForm(u, u.cfg, u.b.ConfigSources())
	u.settings = f
	d := dialog.NewForm(lang.L("Settings"), lang.L("Save"), lang.L("Cancel"), f.items(), func(ok bool) {
		u.settingsOpen = false
		u.settings = nil
		f.fetch.stop(u)
		if !ok {
			return
		}
		c, err := f.config(u.cfg)
		if err != nil {
			u.showDialog(dialog.NewError(err, u.w))
			return
		}
		u.saveConfig(c)
	}, u.w)
	submitOnEnter(d, &f.endpoint.Entry, &f.key.Entry, &f.topK.Entry, &f.budget.Entry)
	d.Resize(fyne.NewSize(min(600, u.w.Canvas().Size().Width-20), d.MinSize().Height))
	u.showDialog(d)
	if u.cfg.BaseURL == "" {
		f.status.SetText(lang.L("Type the endpoint and its models will be listed here."))
		u.w.Canvas().Focus(f.endpoint)
		return
	}
	f.loadModels()
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
				u.showError(lang.L("Could not save the settings"), err)
				return
			}
			if c.BaseURL != old.BaseURL || c.APIKey != old.APIKey {
				u.bar.loadModels()
			}
		}
	})
}

// debouncer runs a function once calls to UI.debounce pause.
type debouncer struct {
	t   *time.Timer
	gen int
}

// debounce runs fn on the UI goroutine after wait, unless debounce is
// called again with d before then. The wait counts as background work, so
// Close and the tests' settle wait for it.
func (u *UI) debounce(d *debouncer, wait time.Duration, fn func()) {
	d.stop(u)
	d.gen++
	gen := d.gen
	u.work.Add(1)
	d.t = time.AfterFunc(wait, func() {
		defer u.work.Done()
		u.handBack(func() {
			if gen == d.gen {
				fn()
			}
		})
	})
}

// stop cancels the pending call, if any.
func (d *debouncer) stop(u *UI) {
	if d.t != nil && d.t.Stop() {
		u.work.Done()
	}
	d.t = nil
	d.gen++
}
