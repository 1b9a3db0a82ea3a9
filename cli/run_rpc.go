package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

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
func (c *RunCmd) runRPC(streams *IO) error {
	ctx := streams.signals.context()
	plan, err := c.plan(streams)
	if err != nil {
		return err
	}
	h := &rpcHost{c: c, streams: streams, cwd: plan.cwd, model: plan.model, prov: plan.prov, systemPrompt: plan.systemPrompt,
		memory: map[*rpc.Session]*session.Memory{}}
	// --permission-mode ask puts each call no rule decides to the client, as a confirm dialog.
	if h.permission, err = c.PolicyFlags.permission(plan.cwd, h.askClient); err != nil {
		return err
	}
	keys := c.apiKeys(streams)
	if _, err := c.RedactFlags.stage(streams, keys); err != nil {
		return err
	}
	defer c.RedactFlags.report(streams)
	h.keys = keys
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

// rpcHost opens sessions, agents and output chains for the rpc server, as the run flags say.
type rpcHost struct {
	c       *RunCmd
	streams *IO
	cwd     string
	model   provider.Model
	prov    provider.Provider
	keys    []string
	srv     *rpc.Server

	systemPrompt string                           // the built-in or given prompt, the instructions, the schema's
	permission   agent.Permission                 // the tool policy, asking the client in --permission-mode ask
	memory       map[*rpc.Session]*session.Memory // the entries of sessions kept in memory
}

// askClient asks the client a yes-or-no question (a confirm dialog); no answer is no.
func (h *rpcHost) askClient(ctx context.Context, question string) (bool, error) {
	a, err := h.srv.Dialogs.Ask(ctx, rpc.Dialog{Method: rpc.DialogConfirm, Title: question})
	return a.Confirmed, err
}

func (h *rpcHost) Cwd() string     { return h.cwd }
func (h *rpcHost) Warn(msg string) { fmt.Fprintf(h.streams.Err, "warning: %s\n", msg) }

// StartSession opens the session of the flags: new, --resume, --continue or --fork.
func (h *rpcHost) StartSession() (*rpc.Session, error) {
	rs, err := h.c.openSession(h.streams, h.cwd)
	if err != nil {
		return nil, err
	}
	mem, _ := rs.Store.(*session.Memory) // --no-session
	return h.wrap(rs, mem), nil
}

// NewSession opens a fresh session, naming parent as its parentSession.
func (h *rpcHost) NewSession(parent string) (*rpc.Session, error) {
	rs := &runSession{regDir: registryDir(h.streams)}
	rs.Header = &codec.Header{Version: session.Version, ID: session.NewID(), Timestamp: session.NowISO(time.Now()),
		Cwd: h.cwd, ParentSession: parent}
	var mem *session.Memory
	if h.c.NoSession {
		mem = session.NewMemory()
		rs.Store = mem
	} else {
		f, err := session.Create(h.c.sessionDir(h.streams), *rs.Header)
		if err != nil {
			return nil, fmt.Errorf("cannot create the session file: %v", err)
		}
		rs.Store, rs.entry.Session = f, f.Path()
	}
	h.register(rs)
	return h.wrap(rs, mem), nil
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
	if !sameDir(hd.Cwd, h.cwd) {
		return nil, fmt.Errorf("session %s belongs to %s, not to this directory (%s)", hd.ID, hd.Cwd, h.cwd)
	}
	rs := &runSession{regDir: registryDir(h.streams)}
	f, l, err := session.Resume(path)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(rs.openError(hd.ID, err).Error(), "error: "))
	}
	for _, w := range l.Warnings {
		h.Warn(path + ": " + w)
	}
	hdr := l.Header
	rs.Header, rs.Store, rs.History, rs.HistoryIDs, rs.entry.Session = &hdr, f, l.Context(), l.ContextEntryIDs(), f.Path()
	h.register(rs)
	return h.wrap(rs, nil), nil
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
	rs := &runSession{regDir: registryDir(h.streams)}
	rs.Header = &codec.Header{Version: session.Version, ID: session.NewID(), Timestamp: session.NowISO(time.Now()),
		Cwd: h.cwd, ParentSession: from.Header.ID}
	var mem *session.Memory
	if h.c.NoSession {
		// A memory session starts empty: the copied conversation is its context.
		mem = session.NewMemory()
		rs.Store = mem
	} else {
		f, err := session.CreateFork(h.c.sessionDir(h.streams), *rs.Header, parent, h.c.RedactFlags.sessionLines())
		if err != nil {
			return nil, fmt.Errorf("cannot create the session file: %v", err)
		}
		rs.Store, rs.entry.Session = f, f.Path()
	}
	rs.History, rs.HistoryIDs = parent.Context(), parent.ContextEntryIDs()
	h.register(rs)
	return h.wrap(rs, mem), nil
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

// register lists a session opened after the first in the run registry.
func (h *rpcHost) register(rs *runSession) {
	if err := rs.register(h.cwd); err != nil {
		h.Warn("cannot register the session, so list, stop, send and attach will not find it: " + err.Error())
	}
}

// wrap turns the run's session into the server's: the store records the model, and a
// registered session gets an events file that `attach` follows.
func (h *rpcHost) wrap(rs *runSession, mem *session.Memory) *rpc.Session {
	rs.Store = h.c.RedactFlags.store(rs.Store)
	rs.Store.AppendModelChange(h.model.Provider, h.model.ID)
	rs.Store.AppendThinkingLevel(h.c.Thinking)
	s := &rpc.Session{Header: rs.Header, Store: rs.Store, History: rs.History, HistoryIDs: rs.HistoryIDs,
		File: rs.entry.Session, Manage: rs.Manage}
	rs.deliver = h.srv.Deliver // `send` to an idle session starts a run
	var events *os.File
	if rs.server != nil {
		f, err := os.OpenFile(control.EventsPath(rs.regDir, rs.Header.ID), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			h.Warn("cannot write the stream for attach: " + err.Error())
		} else {
			events, s.Events = f, f
			os.Remove(control.ExitPath(rs.regDir, rs.Header.ID))
		}
	}
	s.Close = func(code int, reason string) error {
		err := rs.Store.Close()
		if events != nil {
			events.Close()
			// The exit record comes before the registry entry goes, as for a detached run.
			control.WriteExit(rs.regDir, rs.Header.ID, control.Exit{Code: code, Error: reason})
		}
		rs.unregister()
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
	c := h.c
	// The session's own tools: their full outputs go to the session's folder.
	toolOpts := c.toolOptions(h.streams, h.cwd, s.Header.ID)
	toolset, _ := c.toolset(toolOpts)
	cfg := c.LongRunFlags.apply(agent.Config{
		Provider: h.prov, Model: h.model, Tools: toolset, SystemPrompt: h.systemPrompt,
		ThinkingLevel: c.Thinking, Store: s.Store, Emit: emit, Permission: h.permission,
		CheckAnswer:     c.SchemaFlags.checkAnswer(),
		Retry:           agent.RetryPolicy{MaxRetries: c.MaxRetries, BaseDelay: c.RetryBaseDelay, MaxDelay: c.MaxRetryDelay},
		HistoryEntryIDs: s.HistoryIDs,
	}, h.cwd)
	cfg.Gates.Tools = toolOpts
	return agent.New(cfg, s.History)
}

// Chain is the output chain of --mode json: the header, redaction, the delta form.
func (h *rpcHost) Chain(hd codec.Header) stages.Stage {
	redact, _ := h.c.RedactFlags.stage(h.streams, h.keys) // checked at start
	return stages.NewOutput(stages.OutputOptions{Header: hd, Redact: redact, Deltas: h.c.JSONDeltas})
}

// Models are the models whose provider has a key, and the scripted model in use.
func (h *rpcHost) Models() []rpc.ModelInfo {
	var out []rpc.ModelInfo
	if h.model.Provider == provider.APIScript {
		out = append(out, rpc.ModelInfo{Model: h.model})
	}
	reg, err := provider.LoadRegistry(modelsPath(h.streams), h.streams.Getenv)
	if err != nil {
		return out
	}
	for _, p := range reg.Providers {
		if _, err := p.Key(h.streams.Getenv); err != nil && !(h.c.APIKey != "" && p.Name == h.model.Provider) {
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
	if providerName == provider.APIScript && h.model.Provider == provider.APIScript && id == h.model.ID {
		return h.model, h.prov, nil
	}
	quiet := *h.streams
	m, p, err := f.resolve(&quiet, "")
	if err != nil {
		return provider.Model{}, nil, errors.New(strings.TrimPrefix(err.Error(), "error: "))
	}
	return m, p, nil
}

// BaseURL is where a provider's server is.
func (h *rpcHost) BaseURL(providerName string) string {
	reg, err := provider.LoadRegistry(modelsPath(h.streams), h.streams.Getenv)
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
