package cli

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/provider"
)

// ModelFlags choose the model a run talks to; shared by the commands that call a model.
type ModelFlags struct {
	Model    string `placeholder:"PROVIDER/ID" help:"Model as provider/id, or an id one provider alone serves (default: a resumed session's own model, else script/default, the offline scripted provider). See 'base-context models'."`
	Provider string `placeholder:"NAME" help:"Provider of --model, when --model is a bare id."`
	APIKey   string `name:"api-key" placeholder:"KEY" help:"API key for the provider (default: its environment variable or models.json entry)."`
	Script   string `placeholder:"FILE" env:"BASE_CONTEXT_SCRIPT" help:"Script the scripted provider plays (default: a built-in one that lists files)."`

	StreamIdleTimeout time.Duration `default:"90s" placeholder:"DURATION" help:"Longest silence of the provider's server (waiting for it to answer, or between two chunks of its answer) before the response counts as cut off and is retried. Default: 90s."`
}

// validate rejects a stream-idle timeout that is not positive (one that would fail every
// request, or never end a stalled one).
func (f *ModelFlags) validate() error {
	if f.StreamIdleTimeout <= 0 {
		return fmt.Errorf("--stream-idle-timeout must be positive")
	}
	return nil
}

// modelsPath is the user's models file.
func modelsPath(streams *IO) string { return filepath.Join(homeDir(streams), "models.json") }

// modelsFile is the model registry (the catalog and the user's models.json), read once, at
// its first use: a run needs it for its model, the keys it redacts and, in rpc mode, the
// models it lists.
type modelsFile struct {
	path   string
	getenv func(string) string
	once   sync.Once
	reg    *provider.Registry
	err    error
}

func newModelsFile(streams *IO) *modelsFile {
	return &modelsFile{path: modelsPath(streams), getenv: streams.Getenv}
}

// registry reads the file the first time; a file that cannot be read is a usage error.
func (m *modelsFile) registry() (*provider.Registry, error) {
	m.once.Do(func() {
		m.reg, m.err = provider.LoadRegistry(m.path, m.getenv)
		if m.err != nil {
			m.err = Fail(ExitUsage, "cannot read the models file: "+m.err.Error())
		}
	})
	return m.reg, m.err
}

// keys are the values of the keys the agent may use: --api-key and every configured
// provider's key (its environment variable or models.json entry).
func (f *ModelFlags) keys(models *modelsFile) []string {
	var keys []string
	if f.APIKey != "" {
		keys = append(keys, f.APIKey)
	}
	if reg, err := models.registry(); err == nil {
		for _, p := range reg.Providers {
			if k, err := p.Key(models.getenv); err == nil && k != "" {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// defaultModel is the model of a run that names none and continues no session.
const defaultModel = "script/default"

// resolve finds the model (--model, else saved, else the default) and builds its provider.
// Every failure is a usage error (exit 2) that says what to do, reported before anything is
// written to stdout: an explicit --model that is unknown never falls back.
func (f *ModelFlags) resolve(streams *IO, models *modelsFile, saved string) (provider.Model, provider.Provider, error) {
	spec := cmp.Or(f.Model, saved, defaultModel)
	if name, id, ok := strings.Cut(spec, "/"); (ok && name == provider.APIScript && f.Provider == "") || f.Provider == provider.APIScript {
		if f.Provider == provider.APIScript {
			id = strings.TrimPrefix(spec, "script/")
		}
		if id == "" {
			return provider.Model{}, nil, Fail(ExitUsage, "unknown model \"script/\": script/<name> needs a name, e.g. script/default")
		}
		return f.scripted(id)
	}
	reg, err := models.registry()
	if err != nil {
		return provider.Model{}, nil, err
	}
	model, pc, err := reg.Find(spec, f.Provider)
	if err != nil {
		return provider.Model{}, nil, Fail(ExitUsage, err.Error())
	}
	if err := provider.CheckBaseURL(pc.BaseURL); err != nil {
		return provider.Model{}, nil, Fail(ExitUsage, fmt.Sprintf("%s: the baseUrl %q of provider %q (model %s/%s) is not usable: %v",
			cmp.Or(pc.BaseURLFrom, "the catalog"), pc.BaseURL, pc.Name, pc.Name, model.ID, err))
	}
	key := f.APIKey
	if key == "" {
		if key, err = pc.Key(streams.Getenv); err != nil {
			return provider.Model{}, nil, Fail(ExitUsage, err.Error())
		}
	}
	// A provider's warnings (usage a server did not send, parts it cannot read) go to
	// stderr: stdout carries only the stream.
	warn := func(msg string) { fmt.Fprintf(streams.Err, "warning: %s\n", msg) }
	prov, err := provider.ForAPI(pc.API, provider.Endpoint{BaseURL: pc.BaseURL, APIKey: key, Headers: pc.Headers, Warn: warn,
		StreamIdleTimeout: f.StreamIdleTimeout})
	if err != nil {
		return provider.Model{}, nil, Fail(ExitUsage, err.Error())
	}
	return model, provider.WithServerHint(prov, pc.BaseURL), nil
}

func (f *ModelFlags) scripted(id string) (provider.Model, provider.Provider, error) {
	var s *provider.Script
	var err error
	if f.Script != "" {
		s, err = provider.LoadScript(f.Script)
	} else {
		s, err = provider.DefaultScript()
	}
	if err != nil {
		return provider.Model{}, nil, Fail(ExitUsage, err.Error())
	}
	return provider.Model{ID: id, Name: id, Provider: provider.APIScript, API: provider.APIScript,
		ContextWindow: 200000, MaxTokens: 32000, Images: true}, s, nil
}

// ModelsCmd is `base-context models`.
type ModelsCmd struct {
	JSON bool `help:"One JSON object per model and line instead of a table."`
}

// Run lists the models of the catalog and of models.json, with whether a key is there.
func (c *ModelsCmd) Run(streams *IO) error {
	reg, err := newModelsFile(streams).registry()
	if err != nil {
		return err
	}
	return reg.List(streams.Out, streams.Getenv, c.JSON)
}
