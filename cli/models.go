package cli

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
)

// ModelFlags choose the model a run talks to; shared by the commands that call a model.
type ModelFlags struct {
	Model    string `placeholder:"PROVIDER/ID" help:"Model as provider/id, or an id one provider alone serves (default: a resumed session's own model, else script/default, the offline scripted provider). See 'base-context models'."`
	Provider string `placeholder:"NAME" help:"Provider of --model, when --model is a bare id."`
	APIKey   string `name:"api-key" placeholder:"KEY" help:"API key for the provider (default: its environment variable or models.json entry)."`
	Script   string `placeholder:"FILE" env:"BASE_CONTEXT_SCRIPT" help:"Script the scripted provider plays (default: a built-in one that lists files)."`
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
	key := f.APIKey
	if key == "" {
		if key, err = pc.Key(streams.Getenv); err != nil {
			return provider.Model{}, nil, Fail(ExitUsage, err.Error())
		}
	}
	// A provider's warnings (usage a server did not send, parts it cannot read) go to
	// stderr: stdout carries only the stream.
	warn := func(msg string) { fmt.Fprintf(streams.Err, "warning: %s\n", msg) }
	prov, err := provider.ForAPI(pc.API, provider.Endpoint{BaseURL: pc.BaseURL, APIKey: key, Headers: pc.Headers, Warn: warn})
	if err != nil {
		return provider.Model{}, nil, Fail(ExitUsage, err.Error())
	}
	return model, withServerHint(prov, pc.BaseURL), nil
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
	ready := map[string]bool{}
	for _, p := range reg.Providers {
		_, err := p.Key(streams.Getenv)
		ready[p.Name] = err == nil
	}
	if c.JSON {
		w := codec.NewLineWriter(streams.Out)
		for _, m := range reg.Models() {
			if err := w.WriteLine(modelJSON(m, ready[m.Provider])); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(streams.Out, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tAPI\tCONTEXT\tMAX OUT\tREASONING\t$/M IN\t$/M OUT\tKEY")
	for _, m := range reg.Models() {
		key := "ok"
		if !ready[m.Provider] {
			key = "missing"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", m.Provider, m.ID, m.API, m.ContextWindow, m.MaxTokens,
			yesNo(m.Reasoning), price(m.Cost.Input), price(m.Cost.Output), key)
	}
	fmt.Fprintln(tw, "script/<name>\tscript\t200000\t32000\tno\t0\t0\tnone needed (offline, --script FILE)")
	return tw.Flush()
}

func modelJSON(m provider.Model, ready bool) []byte {
	b := append([]byte(nil), `{"provider":`...)
	b = codec.AppendString(b, m.Provider)
	b = append(b, `,"id":`...)
	b = codec.AppendString(b, m.ID)
	b = append(b, `,"name":`...)
	b = codec.AppendString(b, m.Name)
	b = append(b, `,"api":`...)
	b = codec.AppendString(b, m.API)
	b = append(b, `,"contextWindow":`...)
	b = strconv.AppendInt(b, m.ContextWindow, 10)
	b = append(b, `,"maxTokens":`...)
	b = strconv.AppendInt(b, m.MaxTokens, 10)
	b = append(b, `,"reasoning":`...)
	b = strconv.AppendBool(b, m.Reasoning)
	b = append(b, `,"cost":{"input":`...)
	b = codec.AppendFloat(b, m.Cost.Input)
	b = append(b, `,"output":`...)
	b = codec.AppendFloat(b, m.Cost.Output)
	b = append(b, `,"cacheRead":`...)
	b = codec.AppendFloat(b, m.Cost.CacheRead)
	b = append(b, `,"cacheWrite":`...)
	b = codec.AppendFloat(b, m.Cost.CacheWrite)
	b = append(b, `},"keyAvailable":`...)
	b = strconv.AppendBool(b, ready)
	return append(b, '}')
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func price(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
