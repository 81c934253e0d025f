package agenttest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
)

// EmbedRequest is a /v1/embeddings request as the fake received it.
type EmbedRequest struct {
	Model  string
	Inputs []string
	Auth   string // the Authorization header
}

// embedState is what the fake's /v1/embeddings remembers and is switched
// by; guarded by Fake.mu.
type embedState struct {
	requests []EmbedRequest
	fail     int // the HTTP status of every answer while > 0
	delay    time.Duration
	dim      int // overrides EmbedDim when > 0
}

// EmbedRequests returns the /v1/embeddings requests received so far.
func (f *Fake) EmbedRequests() []EmbedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.embeds.requests)
}

// EmbeddedTexts is the number of texts the embedding requests so far
// carried.
func (f *Fake) EmbeddedTexts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.embeds.requests {
		n += len(r.Inputs)
	}
	return n
}

// FailEmbeddings makes /v1/embeddings answer every request with an error
// of that HTTP status (0: answer again).
func (f *Fake) FailEmbeddings(status int) {
	f.mu.Lock()
	f.embeds.fail = status
	f.mu.Unlock()
}

// DelayEmbeddings makes /v1/embeddings wait d before answering (or until
// the client goes away).
func (f *Fake) DelayEmbeddings(d time.Duration) {
	f.mu.Lock()
	f.embeds.delay = d
	f.mu.Unlock()
}

// SetEmbedModels changes Fake.EmbedModels while the fake serves.
func (f *Fake) SetEmbedModels(models ...string) {
	f.mu.Lock()
	f.EmbedModels = models
	f.mu.Unlock()
}

// SetEmbedDim changes the size of the vectors from now on, as when the
// model behind a name is replaced.
func (f *Fake) SetEmbedDim(dim int) {
	f.mu.Lock()
	f.embeds.dim = dim
	f.mu.Unlock()
}

// serveEmbeddings answers as OpenAI does: {"object":"list","data":[{"object":
// "embedding","index":i,"embedding":[...]}],"model","usage"}. The vector of
// a text is a hashed bag of its words (each letter-or-digit run, each CJK
// character), seeded by the model and normalised, so texts that share words
// are near and each model gives different vectors. Like OpenAI it refuses
// an empty input string.
func (f *Fake) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "cannot read body")
		return
	}
	var in struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "invalid JSON body: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(in.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(in.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "input must be a string or strings")
			return
		}
		inputs = []string{one}
	}
	f.mu.Lock()
	f.embeds.requests = append(f.embeds.requests, EmbedRequest{Model: in.Model, Inputs: inputs,
		Auth: r.Header.Get("Authorization")})
	st := f.embeds
	dim := f.EmbedDim
	if st.dim > 0 {
		dim = st.dim
	}
	known := len(f.EmbedModels) == 0 || slices.Contains(f.EmbedModels, in.Model)
	f.mu.Unlock()
	if dim <= 0 {
		dim = 32
	}
	if st.delay > 0 {
		select {
		case <-time.After(st.delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case st.fail > 0:
		writeError(w, st.fail, "api_error", "", "the embedding model failed")
		return
	case !known:
		writeError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist", in.Model))
		return
	case in.EncodingFormat != "" && in.EncodingFormat != "float":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "the fake answers floats only")
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  Usage  `json:"usage"`
	}{Object: "list", Model: in.Model}
	for i, t := range inputs {
		if t == "" {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "",
				fmt.Sprintf("'$.input[%d]' is invalid: an empty string", i))
			return
		}
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: BagOfWords(in.Model, t, dim)})
		out.Usage.PromptTokens += len(t) / 4
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// BagOfWords is the fake's vector of text for model: each word (a run of
// letters or digits, lower-cased, or one CJK character) adds ±1 at a place
// its hash with the model picks; the sum is normalised to length 1.
func BagOfWords(model, text string, dim int) []float32 {
	v := make([]float32, dim)
	add := func(word string) {
		h := fnv.New64a()
		_, _ = io.WriteString(h, model)
		_, _ = io.WriteString(h, "\x00"+word)
		s := h.Sum64()
		if s>>63 == 1 {
			v[s%uint64(dim)]--
		} else {
			v[s%uint64(dim)]++
		}
	}
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			add(word.String())
			word.Reset()
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			add(string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
	}
	return v
}
