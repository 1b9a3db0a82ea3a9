package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testRegistry(t *testing.T, modelsJSON string, env map[string]string) (*Registry, error) {
	t.Helper()
	path := ""
	if modelsJSON != "" {
		path = filepath.Join(t.TempDir(), "models.json")
		if err := os.WriteFile(path, []byte(modelsJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return LoadRegistry(path, func(k string) string { return env[k] })
}

const localModels = `{"providers":{
  "ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","apiKey":"ollama",
    "models":[{"id":"qwen3:32b","reasoning":true,"contextWindow":40960},{"id":"gpt-5"}]},
  "corp":{"baseUrl":"https://llm.corp/v1","api":"openai-responses","apiKey":"CORP_KEY",
    "headers":{"X-Team":"infra"},
    "models":[{"id":"big","name":"Big","maxTokens":9000,"cost":{"input":1,"output":2,"cacheRead":0.5}}]},
  "openai":{"models":[{"id":"gpt-6-preview","contextWindow":500000,"maxTokens":100000}]}
}}`

func TestRegistryFind(t *testing.T) {
	r, err := testRegistry(t, localModels, map[string]string{"CORP_KEY": "k-corp", "ANTHROPIC_BASE_URL": "http://proxy"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		spec, provider string
		want           string // provider/id/api, or the start of the error
	}{
		{"anthropic/claude-sonnet-4-5", "", "anthropic/claude-sonnet-4-5/anthropic-messages"},
		{"claude-opus-5-5", "", "anthropic/claude-opus-5-5/anthropic-messages"},
		{"gpt-5.2", "", "openai/gpt-5.2/openai-responses"},
		{"qwen3:32b", "", "ollama/qwen3:32b/openai-completions"},
		{"big", "corp", "corp/big/openai-responses"},
		{"corp/big", "corp", "corp/big/openai-responses"},
		{"openai/gpt-6-preview", "", "openai/gpt-6-preview/openai-responses"},
		{"gpt-5", "", `error: model "gpt-5" is served by several providers: use one of openai/gpt-5, ollama/gpt-5`},
		{"openai/gpt-99", "", `error: unknown model "openai/gpt-99"; did you mean openai/gpt-5, openai/gpt-4o?`},
		{"sonnet", "", `error: unknown model "sonnet"; did you mean anthropic/claude-sonnet-5-5, anthropic/claude-sonnet-4-6, anthropic/claude-sonnet-4-5?`},
		{"qwen3", "ollama", `error: unknown model "ollama/qwen3"; did you mean ollama/qwen3:32b?`},
		{"nope/mock-gpt", "", `error: unknown model "nope/mock-gpt"`},
		{"x", "nope", `error: unknown provider "nope"`},
	}
	for _, c := range cases {
		m, p, err := r.Find(c.spec, c.provider)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = m.Provider + "/" + m.ID + "/" + m.API
			if p.Name != m.Provider {
				t.Errorf("%s: provider config %s for model of %s", c.spec, p.Name, m.Provider)
			}
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("Find(%q, %q) = %s, want %s…", c.spec, c.provider, got, c.want)
		}
	}

	m, p, _ := r.Find("corp/big", "")
	if m.Name != "Big" || m.MaxTokens != 9000 || m.ContextWindow != defaultContextWindow || m.Cost.CacheRead != 0.5 || p.Headers["X-Team"] != "infra" {
		t.Errorf("corp/big = %+v, headers %v", m, p.Headers)
	}
	if m, _, _ := r.Find("ollama/qwen3:32b", ""); !m.Reasoning || m.ContextWindow != 40960 || m.MaxTokens != defaultMaxTokens || m.Name != "qwen3:32b" {
		t.Errorf("ollama model = %+v", m)
	}
	if _, p, _ := r.Find("claude-haiku-4-5", ""); p.BaseURL != "http://proxy" {
		t.Errorf("ANTHROPIC_BASE_URL not applied: %s", p.BaseURL)
	}
}

func TestRegistryKeys(t *testing.T) {
	env := map[string]string{"CORP_KEY": "k-corp", "OPENAI_API_KEY": "sk-openai"}
	r, err := testRegistry(t, localModels, env)
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return env[k] }
	for name, want := range map[string]string{"openai": "sk-openai", "corp": "k-corp", "ollama": "ollama"} {
		if got, err := r.provider(name).Key(getenv); err != nil || got != want {
			t.Errorf("key of %s = %q, %v; want %q", name, got, err, want)
		}
	}
	_, err = r.provider("anthropic").Key(getenv)
	if err == nil || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY, or pass --api-key") {
		t.Errorf("missing anthropic key: %v", err)
	}
	delete(env, "CORP_KEY")
	if _, err := r.provider("corp").Key(getenv); err == nil {
		t.Error("unset CORP_KEY gave a key")
	}
	// Google: GEMINI_API_KEY, else GOOGLE_API_KEY.
	google := r.provider("google")
	if _, err := google.Key(getenv); err == nil || !strings.Contains(err.Error(), "set GEMINI_API_KEY or GOOGLE_API_KEY, or pass --api-key") {
		t.Errorf("missing google key: %v", err)
	}
	env["GOOGLE_API_KEY"] = "g-google"
	if got, err := google.Key(getenv); got != "g-google" || err != nil {
		t.Errorf("google key from GOOGLE_API_KEY = %q, %v", got, err)
	}
	env["GEMINI_API_KEY"] = "g-gemini"
	if got, err := google.Key(getenv); got != "g-gemini" || err != nil {
		t.Errorf("google key with both set = %q, %v; GEMINI_API_KEY comes first", got, err)
	}
}

// models.json adds Gemini models, to the catalog's google provider or to a provider of its
// own speaking google-generative-ai.
func TestRegistryGemini(t *testing.T) {
	r, err := testRegistry(t, `{"providers":{
		"google":{"models":[{"id":"gemini-9-ultra","reasoning":true,"contextWindow":2000000}]},
		"gemini-proxy":{"baseUrl":"http://proxy/v1beta","api":"google-generative-ai","apiKey":"PROXY_KEY","models":[{"id":"gemini-3-pro-preview"}]}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, p, err := r.Find("google/gemini-9-ultra", "")
	if err != nil || m.API != APIGemini || p.BaseURL != "https://generativelanguage.googleapis.com/v1beta" || m.ContextWindow != 2_000_000 {
		t.Errorf("google/gemini-9-ultra: %+v %+v %v", m, p, err)
	}
	m, p, err = r.Find("gemini-proxy/gemini-3-pro-preview", "")
	if err != nil || m.API != APIGemini || p.BaseURL != "http://proxy/v1beta" {
		t.Errorf("gemini-proxy: %+v %+v %v", m, p, err)
	}
	if _, err := ForAPI(p.API, Endpoint{}); err != nil {
		t.Error(err)
	}
}

func TestRegistryBadFiles(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"providers":{"x":{"api":"openai-completions","models":[]}}}`, "baseUrl and api are required"},
		{`{"providers":{"x":{"baseUrl":"http://h","api":"grpc","models":[]}}}`, `unknown api "grpc"`},
		{`{"providers":{"x":{"baseUrl":"http://h","api":"openai-completions","models":[{"name":"n"}]}}}`, "model 1 has no id"},
		{`{"providers":{"bad name":{"baseUrl":"http://h","api":"openai-completions"}}}`, "names are letters"},
		{`{"providers":{"x":{"url":"http://h"}}}`, `unknown field "url"`},
		{`{"providers":`, "unexpected EOF"},
		{`{"providers":{"x":{"baseUrl":"http://h","api":"openai-completions","models":[{"id":"m","input":["text","audio"]}]}}}`, `provider "x": model "m": input "audio" is not one of "text", "image"`},
		// Syntax and type errors and unknown fields name the line they are on.
		{"{\"providers\":{\n \"x\":{\"baseUrl\":\"http://h\",\"api\":\"openai-completions\",\n \"models\":[{\"id\":\"m\"},]}}}", "line 3: invalid character ']'"},
		{"{\"providers\":{\n\n \"x\":{\"baseUrl\":\"http://h\",\"api\":\"openai-completions\",\n \"models\":[{\"id\":\"m\",\"contextWindow\":\"big\"}]}}}", "line 4: json: cannot unmarshal string"},
		{"{\"providers\":{\n \"x\":{\n \"url\":\"http://h\"}}}", `line 3: json: unknown field "url"`},
	} {
		_, err := testRegistry(t, c.doc, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "models.json") {
			t.Errorf("%s: error %v, want one naming models.json and %q", c.doc, err, c.want)
		}
	}
	if r, err := LoadRegistry(filepath.Join(t.TempDir(), "absent.json"), func(string) string { return "" }); err != nil || len(r.Providers) != 3 {
		t.Errorf("missing models file: %v, %d providers", err, len(r.Providers))
	}
}

// A model of models.json takes images when its input says so, as the upstream's does; the
// catalog's models all do.
func TestRegistryImageInput(t *testing.T) {
	r, err := testRegistry(t, `{"providers":{"local":{"baseUrl":"http://h/v1","api":"openai-completions","models":[
		{"id":"text-only"},{"id":"said-text","input":["text"]},{"id":"seeing","input":["text","image"]}]}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"local/text-only": false, "local/said-text": false, "local/seeing": true, "anthropic/claude-haiku-4-5": true} {
		if m, _, err := r.Find(id, ""); err != nil || m.Images != want {
			t.Errorf("%s: images %v, want %v (%v)", id, m.Images, want, err)
		}
	}
	for _, m := range r.Models() {
		if m.Provider != "local" && !m.Images {
			t.Errorf("catalog model %s/%s does not take images", m.Provider, m.ID)
		}
	}
}

func TestCatalogIsComplete(t *testing.T) {
	r, _ := LoadRegistry("", func(string) string { return "" })
	for _, m := range r.Models() {
		if m.ContextWindow <= 0 || m.MaxTokens <= 0 || m.MaxTokens > m.ContextWindow || m.Cost.Input <= 0 || m.Cost.Output <= m.Cost.Input || m.Name == "" {
			t.Errorf("catalog entry %s/%s is incomplete: %+v", m.Provider, m.ID, m)
		}
	}
}
