package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/rpc"
	"github.com/basecontext/base-context/stages"
)

// validateRPC checks the flags of --mode rpc: prompts come as commands on stdin.
func (c *RunCmd) validateRPC() error {
	switch {
	case len(c.Prompts) > 0:
		return fmt.Errorf("--mode rpc takes its prompts as commands on stdin, not as arguments")
	case c.Detach:
		return fmt.Errorf("--mode rpc is driven by its client over stdin: it cannot --detach")
	}
	return nil
}

// runRPC is `--mode rpc`: the protocol of package rpc on stdin and stdout. Startup failures
// exit 2 before any line is written; the end of stdin lets the current run finish (exit 0);
// SIGINT and SIGTERM abort it (130, 143); `stop` aborts it and exits 1.
func (c *RunCmd) runRPC(streams *IO, set settled) error {
	ctx := streams.signals.context()
	p, err := c.plan(streams, newModelsFile(streams), set, nil)
	if err != nil {
		return err
	}
	defer p.source.Close() // a session the server never opened
	h := &rpcHost{c: c, streams: streams, plan: p, memory: map[*rpc.Session]*session.Memory{}}
	// --permission-mode ask puts each call no rule decides to the client, as a confirm dialog.
	if h.permission, err = c.PolicyFlags.permission(p.cwd, set.sources, h.askClient); err != nil {
		return err
	}
	defer p.redaction.printReport(streams)
	srv := rpc.NewServer(h, streams.Out)
	h.srv = srv
	err = srv.Serve(ctx, streams.In)
	var startup *ExitError
	if errors.As(err, &startup) {
		return err // the session could not be opened: exit 2 before any line
	}
	code, msg, bySignal := streams.signals.exit()
	switch {
	case errors.Is(err, rpc.ErrStopped):
		err = Fail(ExitFailure, "stopped by request")
	case bySignal:
		err = Fail(code, msg)
	case err != nil:
		err = Fail(ExitFailure, err.Error())
	}
	code, msg = exitCode(err)
	if cerr := srv.Close(code, msg); cerr != nil && err == nil {
		err = Fail(ExitFailure, cerr.Error())
	}
	return err
}

// rpcHost opens sessions, agents and output chains for the rpc server, as the run's plan says.
type rpcHost struct {
	c       *RunCmd
	streams *IO
	plan    *runPlan
	srv     *rpc.Server

	permission agent.Permission                 // the tool policy, asking the client in --permission-mode ask
	memory     map[*rpc.Session]*session.Memory // the entries of sessions kept in memory
}

// askClient asks the client a yes-or-no question (a confirm dialog); no answer is no.
func (h *rpcHost) askClient(ctx context.Context, question string) (bool, error) {
	a, err := h.srv.Dialogs.Ask(ctx, rpc.Dialog{Method: rpc.DialogConfirm, Title: question})
	return a.Confirmed, err
}

func (h *rpcHost) Cwd() string     { return h.plan.cwd }
func (h *rpcHost) Warn(msg string) { fmt.Fprintf(h.streams.Err, "warning: %s\n", msg) }

// StartSession opens the session of the flags: new, --resume, --continue or --fork.
func (h *rpcHost) StartSession() (*rpc.Session, error) {
	rs, err := h.c.openSession(h.streams, h.plan)
	if err != nil {
		return nil, err
	}
	mem, _ := rs.Store.(*session.Memory) // --no-session
	return h.wrap(rs, mem), nil
}

// open opens a session of src after the first, as the flags say (in memory with
// --no-session), and registers it.
func (h *rpcHost) open(src *control.Source, parent string) (*rpc.Session, error) {
	s, err := src.Open(control.OpenOptions{Dir: h.c.sessionDir(h.streams), Cwd: h.plan.cwd, Memory: h.c.NoSession,
		Parent: parent, Rewrite: h.plan.redaction.sessionLines(), Warn: func(path, w string) { h.Warn(path + ": " + w) }})
	if err != nil {
		return nil, fmt.Errorf("cannot create the session file: %v", err)
	}
	run, err := control.Start(registryDir(h.streams), s.Header.ID, h.plan.cwd, s.File, nil)
	if err != nil {
		h.Warn("cannot register the session, so list, stop, send and attach will not find it: " + err.Error())
	}
	var mem *session.Memory
	if h.c.NoSession {
		mem, _ = s.Store.(*session.Memory)
	}
	return h.wrap(&runSession{Session: s, Run: run}, mem), nil
}

// NewSession opens a fresh session, naming parent as its parentSession.
func (h *rpcHost) NewSession(parent string) (*rpc.Session, error) {
	return h.open(&control.Source{Choice: control.Choice{Kind: control.KindNew, ID: session.NewID()}}, parent)
}

// SwitchSession continues the saved session at path, or the one a session id names.
func (h *rpcHost) SwitchSession(path string) (*rpc.Session, error) {
	if h.c.NoSession {
		return nil, errors.New("switch_session needs saved sessions: this run has --no-session")
	}
	if _, err := os.Stat(path); err != nil {
		found, ferr := session.Find(h.c.sessionDir(h.streams), path)
		if ferr != nil {
			return nil, ferr
		}
		path = found
	}
	hd, err := session.ReadHeader(path)
	if err != nil {
		return nil, err
	}
	if !control.SameDir(hd.Cwd, h.plan.cwd) {
		return nil, fmt.Errorf("session %s belongs to %s, not to this directory (%s)", hd.ID, hd.Cwd, h.plan.cwd)
	}
	src, err := control.Choice{Kind: control.KindResume, ID: hd.ID, Path: path}.Load(registryDir(h.streams))
	if err != nil {
		return nil, err
	}
	return h.open(src, "")
}

// ForkSession copies the chain of from, up to the entry before, into a new session.
func (h *rpcHost) ForkSession(from *rpc.Session, before string) (*rpc.Session, error) {
	parent, err := h.loaded(from)
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
	return h.open(control.Fork(parent), "")
}

// loaded reads the chain of a session: its file, or its entries in memory.
func (h *rpcHost) loaded(s *rpc.Session) (*session.Loaded, error) {
	if mem := h.memory[s]; mem != nil {
		l := &session.Loaded{Header: *s.Header, Entries: mem.Entries()}
		for i := range l.Entries {
			l.Chain = append(l.Chain, &l.Entries[i])
		}
		return l, nil
	}
	if s.File == "" {
		return &session.Loaded{Header: *s.Header}, nil
	}
	return session.Read(s.File)
}

// Entries returns the entries on the session's chain.
func (h *rpcHost) Entries(s *rpc.Session) ([]session.Entry, error) {
	l, err := h.loaded(s)
	if err != nil {
		return nil, err
	}
	out := make([]session.Entry, len(l.Chain))
	for i, e := range l.Chain {
		out[i] = *e
	}
	return out, nil
}

// wrap turns the run's session into the server's: the store records the model, and a
// registered session gets an events file that `attach` follows.
func (h *rpcHost) wrap(rs *runSession, mem *session.Memory) *rpc.Session {
	store := h.plan.redaction.store(rs.Store)
	store.AppendModelChange(h.plan.model.Provider, h.plan.model.ID)
	store.AppendThinkingLevel(h.c.Thinking)
	s := &rpc.Session{Header: rs.Header, Store: store, History: rs.History, HistoryIDs: rs.HistoryIDs, File: rs.File,
		Manage: func(ctx context.Context, ag *agent.Agent) context.Context { return rs.Manage(ctx, ag) }}
	rs.Deliver = h.srv.Deliver // `send` to an idle session starts a run
	if events, err := rs.OpenEvents(); err != nil {
		h.Warn("cannot write the stream for attach: " + err.Error())
	} else if events != nil {
		s.Events = events
	}
	s.Close = func(code int, reason string) error {
		err := store.Close()
		rs.End(code, reason) // the exit record comes before the registry entry goes, as for a detached run
		delete(h.memory, s)
		return err
	}
	if mem != nil {
		h.memory[s] = mem
	}
	return s
}

// NewAgent builds the agent of a session, with the run flags' configuration.
func (h *rpcHost) NewAgent(s *rpc.Session, emit func(codec.Event) error) *agent.Agent {
	cfg := h.c.agentConfig(h.streams, h.plan, s.Header.ID, agent.Config{
		Store: s.Store, Emit: emit, Permission: h.permission, HistoryEntryIDs: s.HistoryIDs,
	})
	return agent.New(cfg, s.History)
}

// Chain is the output chain of --mode json: the header, redaction, the delta form.
func (h *rpcHost) Chain(hd codec.Header) stages.Stage {
	return h.c.outputChain(h.plan, hd)
}

// Models are the models whose provider has a key, and the scripted model in use.
func (h *rpcHost) Models() []rpc.ModelInfo {
	var out []rpc.ModelInfo
	if h.plan.model.Provider == provider.APIScript {
		out = append(out, rpc.ModelInfo{Model: h.plan.model})
	}
	reg, err := h.plan.models.registry()
	if err != nil {
		return out
	}
	for _, p := range reg.Providers {
		if _, err := p.Key(h.streams.Getenv); err != nil && !(h.c.APIKey != "" && p.Name == h.plan.model.Provider) {
			continue
		}
		for _, m := range p.Models {
			m.Provider, m.API = p.Name, p.API
			out = append(out, rpc.ModelInfo{Model: m, BaseURL: p.BaseURL})
		}
	}
	return out
}

// ResolveModel finds a model as --provider and --model would.
func (h *rpcHost) ResolveModel(providerName, id string) (provider.Model, provider.Provider, error) {
	f := h.c.ModelFlags
	f.Model, f.Provider = id, providerName
	if providerName == provider.APIScript && h.plan.model.Provider == provider.APIScript && id == h.plan.model.ID {
		return h.plan.model, h.plan.prov, nil
	}
	m, p, err := f.resolve(h.streams, h.plan.models, "")
	if err != nil {
		return provider.Model{}, nil, errors.New(strings.TrimPrefix(err.Error(), "error: "))
	}
	return m, p, nil
}

// BaseURL is where a provider's server is.
func (h *rpcHost) BaseURL(providerName string) string {
	reg, err := h.plan.models.registry()
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

var _ rpc.Host = (*rpcHost)(nil)
