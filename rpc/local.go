package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/sandbox"
	"github.com/basecontext/base-context/skills"
	"github.com/basecontext/base-context/stages"
)

// Local is the Host of a `--mode rpc` process: its sessions are files in SessionDir (or kept
// in memory with Memory), each registered in RegistryDir so that list, stop, send and attach
// find it; its agents, output chains and models are those of the run's flags, which the
// caller gives as functions.
type Local struct {
	Plan        *runner.Plan   // the process's working directory, model (recorded in each session), redaction
	Options     runner.Options // the run flags every agent shares
	SessionDir  string
	RegistryDir string
	Memory      bool // --no-session: every session is kept in memory only

	// Start opens the session of the flags (new, --resume, --continue, --fork), registered.
	Start func() (*control.Session, *control.Run, error)
	// Permission decides tool calls (nil: all are allowed); see Ask.
	Permission agent.Permission
	// The models of a provider whose key Getenv has (or APIKey, --api-key, for the provider
	// of the plan's model) are the client's to choose.
	Getenv func(string) string
	APIKey string
	// Resolve finds a model as --provider and --model would; a leading "error: " of its
	// errors, which are written for stderr, is dropped.
	Resolve func(providerName, id string) (provider.Model, provider.Provider, error)
	// Warnings receive the problems a client cannot be told about in a response.
	Warnings func(msg string)
	// Telemetry exports the runs as traces (--otel); nil: none.
	Telemetry *runner.Telemetry

	srv    *Server
	memory map[*Session]*session.Memory // the entries of sessions kept in memory
}

// NewServer returns the server of l, writing to out.
func (l *Local) NewServer(out io.Writer) *Server {
	l.memory = map[*Session]*session.Memory{}
	l.srv = NewServer(l, out)
	return l.srv
}

// Ask asks the client a yes-or-no question (a confirm dialog); no answer is no. It is the
// question of --permission-mode ask.
func (l *Local) Ask(ctx context.Context, question string) (bool, error) {
	a, err := l.srv.Dialogs.Ask(ctx, Dialog{Method: DialogConfirm, Title: question})
	return a.Confirmed, err
}

func (l *Local) Cwd() string { return l.Plan.Cwd }

// Skills are the plan's skills and templates.
func (l *Local) Skills() *skills.Run { return l.Plan.Skills }
func (l *Local) Warn(msg string)     { l.Warnings(msg) }

// MCPServers are the statuses of the process's MCP servers (get_state).
func (l *Local) MCPServers() []*codec.MCPServerStatus { return l.Plan.MCP.Statuses() }

// Sandbox is the run's sandbox (--sandbox).
func (l *Local) Sandbox() *sandbox.Sandbox { return l.Plan.Sandbox }

// StartSession opens the session of the flags: new, --resume, --continue or --fork.
func (l *Local) StartSession() (*Session, error) {
	s, run, err := l.Start()
	if err != nil {
		return nil, err
	}
	mem, _ := s.Store.(*session.Memory) // --no-session
	return l.wrap(s, run, mem), nil
}

// open opens a session of src after the first, as the flags say (in memory with
// --no-session), and registers it.
func (l *Local) open(src *control.Source, parent string) (*Session, error) {
	s, err := src.Open(control.OpenOptions{Dir: l.SessionDir, Cwd: l.Plan.Cwd, Memory: l.Memory,
		Parent: parent, Rewrite: l.Plan.Redaction.SessionLines(), Warn: func(path, w string) { l.Warn(path + ": " + w) }})
	if err != nil {
		return nil, fmt.Errorf("cannot create the session file: %v", err)
	}
	run, err := control.Start(l.RegistryDir, s.Header.ID, l.Plan.Cwd, s.File, nil)
	if err != nil {
		l.Warn("cannot register the session, so list, stop, send and attach will not find it: " + err.Error())
	}
	var mem *session.Memory
	if l.Memory {
		mem, _ = s.Store.(*session.Memory)
	}
	return l.wrap(s, run, mem), nil
}

// NewSession opens a fresh session, naming parent as its parentSession.
func (l *Local) NewSession(parent string) (*Session, error) {
	return l.open(&control.Source{Choice: control.Choice{Kind: control.KindNew, ID: session.NewID()}}, parent)
}

// SwitchSession continues the saved session at path, or the one a session id names.
func (l *Local) SwitchSession(path string) (*Session, error) {
	if l.Memory {
		return nil, errors.New("switch_session needs saved sessions: this run has --no-session")
	}
	if _, err := os.Stat(path); err != nil {
		found, ferr := session.Find(l.SessionDir, path)
		if ferr != nil {
			return nil, ferr
		}
		path = found
	}
	hd, err := session.ReadHeader(path)
	if err != nil {
		return nil, err
	}
	if !control.SameDir(hd.Cwd, l.Plan.Cwd) {
		return nil, fmt.Errorf("session %s belongs to %s, not to this directory (%s)", hd.ID, hd.Cwd, l.Plan.Cwd)
	}
	src, err := control.Choice{Kind: control.KindResume, ID: hd.ID, Path: path}.Load(l.RegistryDir)
	if err != nil {
		return nil, err
	}
	return l.open(src, "")
}

// ForkSession copies the chain of from, up to the entry before, into a new session.
func (l *Local) ForkSession(from *Session, before string) (*Session, error) {
	parent, err := l.loaded(from)
	if err != nil {
		return nil, err
	}
	if before != "" {
		cut := *parent
		cut.Chain = nil
		for _, e := range parent.Chain {
			if e.ID == before {
				break
			}
			cut.Chain = append(cut.Chain, e)
		}
		parent = &cut
	}
	return l.open(control.Fork(parent), "")
}

// loaded reads the chain of a session: its file, or its entries in memory.
func (l *Local) loaded(s *Session) (*session.Loaded, error) {
	if mem := l.memory[s]; mem != nil {
		ld := &session.Loaded{Header: *s.Header, Entries: mem.Entries()}
		for i := range ld.Entries {
			ld.Chain = append(ld.Chain, &ld.Entries[i])
		}
		return ld, nil
	}
	if s.File == "" {
		return &session.Loaded{Header: *s.Header}, nil
	}
	return session.Read(s.File)
}

// Entries returns the entries on the session's chain.
func (l *Local) Entries(s *Session) ([]session.Entry, error) {
	ld, err := l.loaded(s)
	if err != nil {
		return nil, err
	}
	out := make([]session.Entry, len(ld.Chain))
	for i, e := range ld.Chain {
		out[i] = *e
	}
	return out, nil
}

// wrap turns an open session into the server's: the store records the model, and a
// registered session gets an events file that `attach` follows.
func (l *Local) wrap(cs *control.Session, run *control.Run, mem *session.Memory) *Session {
	store := l.Plan.Store(l.Options, cs.Store)
	s := &Session{Header: cs.Header, Store: store, History: cs.History, HistoryIDs: cs.HistoryIDs, File: cs.File,
		Manage: func(ctx context.Context, ag *agent.Agent) context.Context { return run.Manage(ctx, ag) }}
	run.Deliver = l.srv.Deliver // `send` to an idle session starts a run
	if events, err := run.OpenEvents(); err != nil {
		l.Warn("cannot write the stream for attach: " + err.Error())
	} else if events != nil {
		s.Events = events
	}
	s.Close = func(code int, reason string) error {
		err := store.Close()
		// The exit record comes before the registry entry goes, as for a detached run; without
		// it `attach` says the run died, so a failure to write it is worth a warning.
		if eerr := run.End(code, reason); eerr != nil {
			l.Warn("cannot record how the session ended for attach: " + eerr.Error())
		}
		delete(l.memory, s)
		return err
	}
	if mem != nil {
		l.memory[s] = mem
	}
	return s
}

// NewAgent builds the agent of a session, with the run flags' configuration.
func (l *Local) NewAgent(s *Session, emit func(codec.Event) error) *agent.Agent {
	observed := func(e codec.Event) error { // the model's reads of a SKILL.md are skill_activated events
		if err := emit(e); err != nil {
			return err
		}
		if activated := l.Plan.Skills.Observe(e); activated != nil {
			return emit(activated)
		}
		return nil
	}
	exported := func(e codec.Event) error { // --otel: every event of every session's runs
		l.Telemetry.Event(e)
		return observed(e)
	}
	opts := l.Options
	if l.Telemetry != nil {
		opts.CallEnv = l.Telemetry.CallEnv // the commands of a tool call join its span
	}
	cfg := l.Plan.AgentConfig(opts, s.Header.ID, agent.Config{
		Store: s.Store, Emit: exported, Permission: l.Permission, HistoryEntryIDs: s.HistoryIDs,
	})
	return agent.New(cfg, s.History)
}

// Chain is the output chain of a session that opens (--mode json's: the header, redaction,
// the delta form); with --otel its header starts the session's trace.
func (l *Local) Chain(hd codec.Header) stages.Stage {
	l.Telemetry.Event(&hd)
	return l.Plan.OutputChain(l.Options, hd)
}

// Models are the models whose provider has a key, and the scripted model in use.
func (l *Local) Models() []ModelInfo {
	var out []ModelInfo
	if l.Plan.Model.Provider == provider.APIScript {
		out = append(out, ModelInfo{Model: l.Plan.Model})
	}
	reg, err := l.Plan.Models.Registry()
	if err != nil {
		return out
	}
	for _, p := range reg.Providers {
		if _, err := p.Key(l.Getenv); err != nil && !(l.APIKey != "" && p.Name == l.Plan.Model.Provider) {
			continue
		}
		for _, m := range p.Models {
			m.Provider, m.API = p.Name, p.API
			out = append(out, ModelInfo{Model: m, BaseURL: p.BaseURL})
		}
	}
	return out
}

// ResolveModel finds a model as --provider and --model would; the scripted model in use is
// found by its id.
func (l *Local) ResolveModel(providerName, id string) (provider.Model, provider.Provider, error) {
	if providerName == provider.APIScript && l.Plan.Model.Provider == provider.APIScript && id == l.Plan.Model.ID {
		return l.Plan.Model, l.Plan.Provider, nil
	}
	m, p, err := l.Resolve(providerName, id)
	if err != nil {
		return provider.Model{}, nil, errors.New(strings.TrimPrefix(err.Error(), "error: "))
	}
	return m, p, nil
}

// BaseURL is where a provider's server is.
func (l *Local) BaseURL(providerName string) string {
	reg, err := l.Plan.Models.Registry()
	if err != nil {
		return ""
	}
	for _, p := range reg.Providers {
		if p.Name == providerName {
			return p.BaseURL
		}
	}
	return ""
}

var _ Host = (*Local)(nil)
