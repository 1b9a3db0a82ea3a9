package provider

import (
	"cmp"
	"fmt"
	"strings"
	"sync"
	"time"
)

// DefaultModel is the model of a run that names none and continues no session.
const DefaultModel = "script/default"

// Models is the model registry of a run (the catalog and the user's models.json), read
// once, at its first use: a run needs it for its model, the keys it redacts and, in rpc
// mode, the models it lists.
type Models struct {
	path   string
	getenv func(string) string
	once   sync.Once
	reg    *Registry
	err    error
}

// NewModels is the registry of the models file at path, not read yet.
func NewModels(path string, getenv func(string) string) *Models {
	return &Models{path: path, getenv: getenv}
}

// Registry reads the file the first time.
func (m *Models) Registry() (*Registry, error) {
	m.once.Do(func() {
		m.reg, m.err = LoadRegistry(m.path, m.getenv)
		if m.err != nil {
			m.err = fmt.Errorf("cannot read the models file: %w", m.err)
		}
	})
	return m.reg, m.err
}

// Keys are the values of the keys the agent may use: apiKey (given on the command line)
// and every configured provider's key (its environment variable or models.json entry).
func (m *Models) Keys(apiKey string) []string {
	var keys []string
	if apiKey != "" {
		keys = append(keys, apiKey)
	}
	if reg, err := m.Registry(); err == nil {
		for _, p := range reg.Providers {
			if k, err := p.Key(m.getenv); err == nil && k != "" {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// Choice is what a run says of its model: the flags --model, --provider, --api-key,
// --script and --stream-idle-timeout.
type Choice struct {
	Model, Provider, APIKey, Script string
	StreamIdleTimeout               time.Duration
	Warn                            func(msg string) // a provider's warnings
}

// Resolve finds the model (c.Model, else saved, else the default) and builds its
// provider. Every failure says what to do; an explicit model that is unknown never falls
// back.
func (m *Models) Resolve(c Choice, saved string) (Model, Provider, error) {
	spec := cmp.Or(c.Model, saved, DefaultModel)
	if name, id, ok := strings.Cut(spec, "/"); (ok && name == APIScript && c.Provider == "") || c.Provider == APIScript {
		if c.Provider == APIScript {
			id = strings.TrimPrefix(spec, "script/")
		}
		if id == "" {
			return Model{}, nil, fmt.Errorf("unknown model \"script/\": script/<name> needs a name, e.g. script/default")
		}
		return scripted(c.Script, id)
	}
	reg, err := m.Registry()
	if err != nil {
		return Model{}, nil, err
	}
	model, pc, err := reg.Find(spec, c.Provider)
	if err != nil {
		return Model{}, nil, err
	}
	if err := CheckBaseURL(pc.BaseURL); err != nil {
		return Model{}, nil, fmt.Errorf("%s: the baseUrl %q of provider %q (model %s/%s) is not usable: %v",
			cmp.Or(pc.BaseURLFrom, "the catalog"), pc.BaseURL, pc.Name, pc.Name, model.ID, err)
	}
	key := c.APIKey
	if key == "" {
		if key, err = pc.Key(m.getenv); err != nil {
			return Model{}, nil, err
		}
	}
	prov, err := ForAPI(pc.API, Endpoint{BaseURL: pc.BaseURL, APIKey: key, Headers: pc.Headers, Warn: c.Warn,
		StreamIdleTimeout: c.StreamIdleTimeout})
	if err != nil {
		return Model{}, nil, err
	}
	return model, WithServerHint(prov, pc.BaseURL), nil
}

// scripted is the scripted provider playing the script at path (default: the built-in one).
func scripted(path, id string) (Model, Provider, error) {
	var s *Script
	var err error
	if path != "" {
		s, err = LoadScript(path)
	} else {
		s, err = DefaultScript()
	}
	if err != nil {
		return Model{}, nil, err
	}
	return Model{ID: id, Name: id, Provider: APIScript, API: APIScript,
		ContextWindow: 200000, MaxTokens: 32000, Images: true}, s, nil
}
