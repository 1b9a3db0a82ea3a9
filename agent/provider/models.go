package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/candidates"
	"github.com/basecontext/base-context/internal/similar"
	"github.com/basecontext/base-context/internal/userfile"
)

// ProviderConfig is a configured provider: where its server is, how it is spoken to, how
// its key is found, and the models it serves.
type ProviderConfig struct {
	Name    string
	API     string
	BaseURL string
	// BaseURLFrom says where BaseURL was set, for messages about it: the models file's path,
	// "environment variable <NAME>", or "" for the catalog's own.
	BaseURLFrom string
	// APIKey is the configured key: an environment variable's name or the key itself.
	APIKey string
	// KeyFallbacks are other variables read, in order, when APIKey names one that is not
	// set (Google's GOOGLE_API_KEY after GEMINI_API_KEY).
	KeyFallbacks []string
	Headers      map[string]string
	Models       []Model
	// BuiltIn: from the catalog (possibly extended by models.json).
	BuiltIn bool
}

// Registry is every provider known: the catalog, then those of models.json.
type Registry struct {
	Providers []*ProviderConfig
}

// builtinProviders are the catalog's providers. Every model of the catalog takes images.
// Prices are dollars per million tokens;
// Anthropic cache writes cost 1.25× input and cache reads 0.1×, OpenAI bills cached input
// as CacheRead, Google bills cached input at a tenth of input (prompts up to 200k tokens:
// the longer-prompt rates of the Pro models are not modelled).
func builtinProviders() []*ProviderConfig {
	anthropic := func(id, name string, ctx, out int64, in, outPrice float64) Model {
		return Model{ID: id, Name: name, ContextWindow: ctx, MaxTokens: out, Reasoning: true, Images: true,
			Cost: Prices{Input: in, Output: outPrice, CacheRead: in / 10, CacheWrite: in * 1.25}}
	}
	// Claude 4.6 and later think adaptively, from an effort level.
	adaptive := func(m Model) Model { m.AdaptiveThinking = true; return m }
	google := func(id, name string, ctx, out int64, reasoning bool, in, outPrice float64) Model {
		return Model{ID: id, Name: name, ContextWindow: ctx, MaxTokens: out, Reasoning: reasoning, Images: true,
			Cost: Prices{Input: in, Output: outPrice, CacheRead: in / 10}}
	}
	openai := func(id, name string, ctx, out int64, reasoning bool, in, outPrice, cached float64) Model {
		return Model{ID: id, Name: name, ContextWindow: ctx, MaxTokens: out, Reasoning: reasoning, Images: true,
			Cost: Prices{Input: in, Output: outPrice, CacheRead: cached}}
	}
	return []*ProviderConfig{
		{
			Name: "anthropic", API: APIAnthropicMessages, BaseURL: "https://api.anthropic.com",
			APIKey: "ANTHROPIC_API_KEY", BuiltIn: true,
			Models: []Model{
				adaptive(anthropic("claude-fable-5-1", "Claude Fable 5.1", 1_000_000, 128_000, 10, 50)),
				adaptive(anthropic("claude-opus-5-5", "Claude Opus 5.5", 1_000_000, 128_000, 4, 20)),
				adaptive(anthropic("claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, 2, 10)),
				adaptive(anthropic("claude-haiku-5-5", "Claude Haiku 5.5", 1_000_000, 128_000, 0.10, 0.50)),
				adaptive(anthropic("claude-opus-5", "Claude Opus 5", 1_000_000, 128_000, 5, 25)),
				adaptive(anthropic("claude-opus-4-6", "Claude Opus 4.6", 1_000_000, 128_000, 5, 25)),
				adaptive(anthropic("claude-sonnet-4-6", "Claude Sonnet 4.6", 1_000_000, 64_000, 3, 15)),
				anthropic("claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, 5, 25),
				anthropic("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, 3, 15),
				anthropic("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, 1, 5),
			},
		},
		{
			Name: "openai", API: APIOpenAIResponses, BaseURL: "https://api.openai.com/v1",
			APIKey: "OPENAI_API_KEY", BuiltIn: true,
			Models: []Model{
				openai("gpt-5.4", "GPT-5.4", 400_000, 128_000, true, 2.50, 15, 0.25),
				openai("gpt-5.4-mini", "GPT-5.4 mini", 400_000, 128_000, true, 0.75, 4.50, 0.075),
				openai("gpt-5.2", "GPT-5.2", 400_000, 128_000, true, 1.75, 14, 0.175),
				openai("gpt-5.2-codex", "GPT-5.2-Codex", 400_000, 128_000, true, 1.75, 14, 0.175),
				openai("gpt-5.1", "GPT-5.1", 400_000, 128_000, true, 1.25, 10, 0.125),
				openai("gpt-5", "GPT-5", 400_000, 128_000, true, 1.25, 10, 0.125),
				openai("gpt-5-mini", "GPT-5 mini", 400_000, 128_000, true, 0.25, 2, 0.025),
				openai("gpt-5-nano", "GPT-5 nano", 400_000, 128_000, true, 0.05, 0.40, 0.005),
				openai("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, false, 2, 8, 0.50),
				openai("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, false, 0.40, 1.60, 0.10),
				openai("gpt-4o", "GPT-4o", 128_000, 16_384, false, 2.50, 10, 1.25),
				openai("gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, false, 0.15, 0.60, 0.075),
				openai("o3", "o3", 200_000, 100_000, true, 2, 8, 0.50),
				openai("o4-mini", "o4-mini", 200_000, 100_000, true, 1.10, 4.40, 0.275),
			},
		},
		{
			Name: "google", API: APIGemini, BaseURL: "https://generativelanguage.googleapis.com/v1beta",
			APIKey: "GEMINI_API_KEY", KeyFallbacks: []string{"GOOGLE_API_KEY"}, BuiltIn: true,
			Models: []Model{
				google("gemini-3.1-pro-preview", "Gemini 3.1 Pro Preview", 1_048_576, 65_536, true, 2, 12),
				google("gemini-3-pro-preview", "Gemini 3 Pro Preview", 1_048_576, 65_536, true, 2, 12),
				google("gemini-3-flash-preview", "Gemini 3 Flash Preview", 1_048_576, 65_536, true, 0.50, 3),
				google("gemini-3.1-flash-lite-preview", "Gemini 3.1 Flash-Lite Preview", 1_048_576, 65_536, true, 0.25, 1.50),
				google("gemini-2.5-pro", "Gemini 2.5 Pro", 1_048_576, 65_536, true, 1.25, 10),
				google("gemini-2.5-flash", "Gemini 2.5 Flash", 1_048_576, 65_536, true, 0.30, 2.50),
				google("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 1_048_576, 65_536, true, 0.10, 0.40),
			},
		},
	}
}

// Default settings of a model configured without them.
const (
	defaultContextWindow = 128_000
	defaultMaxTokens     = 16_384
)

// LoadRegistry returns the catalog extended by the models file at path (a missing file is
// no error). A provider of the file with a catalog provider's name extends it: its models
// are added (replacing those with the same id) and its baseUrl, apiKey and headers win. The
// environment's OPENAI_BASE_URL and ANTHROPIC_BASE_URL move the catalog providers.
func LoadRegistry(path string, getenv func(string) string) (*Registry, error) {
	r := &Registry{Providers: builtinProviders()}
	for _, p := range r.Providers {
		if name := strings.ToUpper(p.Name) + "_BASE_URL"; getenv(name) != "" {
			p.BaseURL, p.BaseURLFrom = getenv(name), "environment variable "+name
		}
	}
	if path == "" {
		return r, nil
	}
	data, err := userfile.Read(path, userfile.ConfigMax)
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	if err := r.addFile(path, data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// modelsFile is the document of models.json.
type modelsFile struct {
	Providers map[string]struct {
		BaseURL string            `json:"baseUrl"`
		API     string            `json:"api"`
		APIKey  string            `json:"apiKey"`
		Headers map[string]string `json:"headers"`
		Models  []struct {
			ID            string   `json:"id"`
			Name          string   `json:"name"`
			Reasoning     bool     `json:"reasoning"`
			Adaptive      bool     `json:"adaptiveThinking"`
			ContextWindow int64    `json:"contextWindow"`
			MaxTokens     int64    `json:"maxTokens"`
			Input         []string `json:"input"`
			Cost          *Prices  `json:"cost"`
		} `json:"models"`
	} `json:"providers"`
}

// UnmarshalJSON reads prices as {"input","output","cacheRead","cacheWrite"}.
func (p *Prices) UnmarshalJSON(b []byte) error {
	var v struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cacheRead"`
		CacheWrite float64 `json:"cacheWrite"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Prices{Input: v.Input, Output: v.Output, CacheRead: v.CacheRead, CacheWrite: v.CacheWrite}
	return nil
}

// lazyRegexp is pattern compiled at its first use. The package is linked into every command,
// a filter too, and compiling its patterns when it is initialised made every start pay.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

var providerName = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (r *Registry) addFile(path string, data []byte) error {
	var doc modelsFile
	if err := codec.DecodeStrict(data, &doc); err != nil {
		return err
	}
	names := make([]string, 0, len(doc.Providers))
	for name := range doc.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		in := doc.Providers[name]
		if !providerName().MatchString(name) || name == APIScript {
			return fmt.Errorf("provider %q: names are letters, digits, '.', '_' and '-' (and not %q)", name, APIScript)
		}
		p := r.provider(name)
		if p == nil {
			if in.BaseURL == "" || in.API == "" {
				return fmt.Errorf("provider %q: baseUrl and api are required", name)
			}
			p = &ProviderConfig{Name: name}
			r.Providers = append(r.Providers, p)
		}
		if in.API != "" {
			if _, err := ForAPI(in.API, Endpoint{}); err != nil {
				return fmt.Errorf("provider %q: %w", name, err)
			}
			p.API = in.API
		}
		if in.BaseURL != "" {
			p.BaseURL, p.BaseURLFrom = in.BaseURL, path
		}
		if in.APIKey != "" {
			p.APIKey, p.KeyFallbacks = in.APIKey, nil
		}
		if in.Headers != nil {
			p.Headers = in.Headers
		}
		for i, m := range in.Models {
			if m.ID == "" {
				return fmt.Errorf("provider %q: model %d has no id", name, i+1)
			}
			model := Model{ID: m.ID, Name: m.Name, Reasoning: m.Reasoning, AdaptiveThinking: m.Adaptive,
				ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens}
			if model.Name == "" {
				model.Name = m.ID
			}
			if model.ContextWindow <= 0 {
				model.ContextWindow = defaultContextWindow
			}
			if model.MaxTokens <= 0 {
				model.MaxTokens = min(defaultMaxTokens, model.ContextWindow)
			}
			if m.Cost != nil {
				model.Cost = *m.Cost
			}
			for _, in := range m.Input {
				switch in {
				case "text":
				case "image":
					model.Images = true
				default:
					return fmt.Errorf("provider %q: model %q: input %q is not one of \"text\", \"image\"", name, m.ID, in)
				}
			}
			p.setModel(model)
		}
	}
	return nil
}

func (r *Registry) provider(name string) *ProviderConfig {
	for _, p := range r.Providers {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (p *ProviderConfig) setModel(m Model) {
	for i := range p.Models {
		if p.Models[i].ID == m.ID {
			p.Models[i] = m
			return
		}
	}
	p.Models = append(p.Models, m)
}

func (p *ProviderConfig) model(id string) (Model, bool) {
	for _, m := range p.Models {
		if m.ID == id {
			m.Provider, m.API = p.Name, p.API
			return m, true
		}
	}
	return Model{}, false
}

// Models lists every model, provider by provider.
func (r *Registry) Models() []Model {
	var out []Model
	for _, p := range r.Providers {
		for _, m := range p.Models {
			m.Provider, m.API = p.Name, p.API
			out = append(out, m)
		}
	}
	return out
}

// Find resolves a model: "provider/id", or an id that one provider alone serves; with
// providerName set, spec is an id of that provider. Errors say what is known instead.
func (r *Registry) Find(spec, providerName string) (Model, *ProviderConfig, error) {
	if providerName != "" {
		p := r.provider(providerName)
		if p == nil {
			return Model{}, nil, fmt.Errorf("unknown provider %q (known: %s)", providerName, candidates.Join(r.names()))
		}
		id := strings.TrimPrefix(spec, providerName+"/")
		if m, ok := p.model(id); ok {
			return m, p, nil
		}
		return Model{}, nil, r.unknown(providerName+"/"+id, p)
	}
	if name, id, ok := strings.Cut(spec, "/"); ok {
		if p := r.provider(name); p != nil {
			if m, ok := p.model(id); ok {
				return m, p, nil
			}
			return Model{}, nil, r.unknown(spec, p)
		}
	}
	var found []*ProviderConfig
	for _, p := range r.Providers {
		if _, ok := p.model(spec); ok {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 1:
		m, _ := found[0].model(spec)
		return m, found[0], nil
	case 0:
		return Model{}, nil, r.unknown(spec, nil)
	}
	var names []string
	for _, p := range found {
		names = append(names, p.Name+"/"+spec)
	}
	return Model{}, nil, fmt.Errorf("model %q is served by several providers: use one of %s", spec, candidates.Join(names))
}

func (r *Registry) names() []string {
	var names []string
	for _, p := range r.Providers {
		names = append(names, p.Name)
	}
	return names
}

// unknown explains an unknown model, suggesting the models whose ids are like it: of its
// provider p, or of all providers (p nil).
func (r *Registry) unknown(spec string, p *ProviderConfig) error {
	id := spec
	if p != nil {
		id = strings.TrimPrefix(spec, p.Name+"/")
	}
	byID := map[string][]string{} // one id may be served by several providers
	var ids []string
	for _, m := range r.Models() {
		if p != nil && m.Provider != p.Name {
			continue
		}
		if _, seen := byID[m.ID]; !seen {
			ids = append(ids, m.ID)
		}
		byID[m.ID] = append(byID[m.ID], m.Provider+"/"+m.ID)
	}
	var names []string
	for _, like := range similar.Closest(id, ids) {
		names = append(names, byID[like]...)
	}
	msg := fmt.Sprintf("unknown model %q", spec)
	if len(names) > 0 {
		return fmt.Errorf("%s; did you mean %s? `base-context models` lists the known models; add others to models.json", msg, candidates.Join(names))
	}
	return errors.New(msg + "; `base-context models` lists the known models; add others to models.json")
}

var envName = lazyRegexp(`^[A-Z_][A-Z0-9_]*$`)

// Key returns the provider's key: the value of the environment variable its apiKey names,
// or the apiKey itself when it is not such a name. It fails when the key names a variable
// that is not set; a provider configured without a key needs none ("", nil).
func (p *ProviderConfig) Key(getenv func(string) string) (string, error) {
	if p.APIKey == "" {
		return "", nil
	}
	if v := getenv(p.APIKey); v != "" {
		return v, nil
	}
	for _, name := range p.KeyFallbacks {
		if v := getenv(name); v != "" {
			return v, nil
		}
	}
	if envName().MatchString(p.APIKey) {
		names := strings.Join(append([]string{p.APIKey}, p.KeyFallbacks...), " or ")
		return "", fmt.Errorf("no API key for provider %q: set %s, or pass --api-key", p.Name, names)
	}
	return p.APIKey, nil
}
