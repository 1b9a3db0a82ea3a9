package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/sandbox"
	"github.com/basecontext/base-context/skills"
	"github.com/basecontext/base-context/stages"
)

// Session is one conversation the server holds: the session file (or memory) it writes and
// its place in the run registry. The host opens it; the server closes it.
type Session struct {
	Header     *codec.Header
	Store      session.Store
	History    []codec.Message // the conversation it continues (nil for a new one)
	HistoryIDs []string        // the session entry id of each History message
	File       string          // the session file, "" for a session kept in memory

	// Events, when set, receives a copy of the session's event lines (the stream `attach`
	// follows).
	Events io.Writer
	// Manage ties the agent to the registry: `send` queues into ag, and `stop` cancels the
	// returned context. Nil: the session is not registered.
	Manage func(ctx context.Context, ag *agent.Agent) context.Context
	// Close closes the session file and removes the session from the registry, recording
	// how its stream ended (the exit status the process will have, and its reason).
	Close func(code int, reason string) error
}

// ModelInfo is a model the client may choose, with where its provider is.
type ModelInfo struct {
	provider.Model
	BaseURL string
}

// Host is what the server needs from the command line: sessions, agents, models and the
// output chain, built as the run flags say.
type Host interface {
	// StartSession opens the session the process starts with.
	StartSession() (*Session, error)
	// NewSession opens a fresh session; parent, when not "", is recorded as its parentSession.
	NewSession(parent string) (*Session, error)
	// SwitchSession opens the saved session at path (or a session id) to continue it.
	SwitchSession(path string) (*Session, error)
	// ForkSession opens a new session holding the conversation of from up to, not
	// including, the entry before (the whole of it when before is "").
	ForkSession(from *Session, before string) (*Session, error)
	// Entries returns the entries of the session's chain, oldest first.
	Entries(s *Session) ([]session.Entry, error)
	// NewAgent builds the agent of s, sending its events to emit.
	NewAgent(s *Session, emit func(codec.Event) error) *agent.Agent
	// Chain builds the output chain of a session's events (header, redaction, deltas).
	Chain(h codec.Header) stages.Stage
	// Models are the models the client may choose (cycle_model goes through them in order).
	Models() []ModelInfo
	// ResolveModel finds a model and builds its provider.
	ResolveModel(providerName, id string) (provider.Model, provider.Provider, error)
	// BaseURL is the address of a provider's server ("" when it has none).
	BaseURL(providerName string) string
	// Cwd is the working directory: where the bash command runs.
	Cwd() string
	// Sandbox is what the tools run under (--sandbox); nil: off.
	Sandbox() *sandbox.Sandbox
	// Warn reports a problem on stderr.
	Warn(msg string)
	// Skills are the skills and prompt templates (package skills); nil: none.
	Skills() *skills.Run
}

// ErrStopped ends Serve when `base-context stop` asked the run to stop.
var ErrStopped = errors.New("stopped by request")

// Server reads commands and writes responses, events and dialog requests.
type Server struct {
	host Host
	out  io.Writer

	wmu    sync.Mutex // one writer at a time on out: responses, events and dialogs
	resp   *codec.LineWriter
	events *codec.LineWriter // out, and the session's events copy
	stream stages.Stage      // the current session's output chain

	Dialogs *Dialogs

	// The fields below are the reader goroutine's, except where mu is said to guard them.
	mu        sync.Mutex
	procCtx   context.Context // Serve's: a signal cancels it
	sess      *Session
	sessCtx   context.Context
	ag        *agent.Agent
	chain     stages.Stage
	streaming bool                    // guarded by mu: a prompt or compaction runs
	runCancel context.CancelCauseFunc // guarded by mu
	runDone   chan struct{}           // guarded by mu; closed when the run has ended
	pending   []codec.Message         // guarded by mu: bash results waiting for the run to end
	set       settings                // guarded by mu: what the next run uses
	name      string                  // guarded by mu: the session's display name

	bashMu     sync.Mutex
	bashCancel context.CancelFunc
	bashDone   chan struct{}

	obs        sync.Mutex // guards what the event stream tells
	mirror     []codec.Message
	resync     bool // a compaction replaced the context: read it again from the agent
	compacting bool
	retrying   bool
	agentEnded bool // the run has written agent_end: only its bookkeeping is left
	compaction *codec.CompactionResult

	steeringMode, followUpMode string
}

// settings are the agent's settings the client changes; they apply from the next run.
type settings struct {
	model          provider.Model
	prov           provider.Provider
	thinking       string
	autoCompaction bool
	retry          agent.RetryPolicy
	autoRetry      bool
}

// NewServer returns a server writing to out.
func NewServer(host Host, out io.Writer) *Server {
	s := &Server{host: host, out: out, resp: codec.NewLineWriter(out),
		steeringMode: "all", followUpMode: "one-at-a-time"}
	s.Dialogs = newDialogs(s.writeLine)
	return s
}

// writeLine writes a line of ours (a response, a dialog request) to the client. It goes
// through the session's chain, so that --redact applies to it as to the events; it is not
// part of the events copy.
func (s *Server) writeLine(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.stream == nil {
		return s.resp.WriteLine(line)
	}
	return s.stream.Push(stages.LineFrame(line, 0), s.writeFrame)
}

// Serve runs the protocol until in ends (then the current run finishes and Serve returns
// nil), ctx is cancelled (the run is aborted and ctx's error returned), or `stop` asks the
// run to stop (ErrStopped). The caller then closes the session with Close.
func (s *Server) Serve(ctx context.Context, in io.Reader) (err error) {
	sess, err := s.host.StartSession()
	if err != nil {
		return err
	}
	s.procCtx = ctx
	s.open(ctx, sess)
	defer func() {
		s.Dialogs.close()
		s.abortBash()
	}()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		lr := codec.NewLineReader(in)
		for {
			line, err := lr.ReadLine()
			if err != nil {
				readErr <- err
				return
			}
			select {
			case lines <- append([]byte(nil), line...):
			case <-ctx.Done():
				return
			}
		}
	}()
	n := 0
	for {
		select {
		case <-ctx.Done():
			s.abort()
			return ctx.Err()
		case <-s.sessCtx.Done():
			if ctx.Err() == nil {
				s.abort()
				return ErrStopped
			}
		case line := <-lines:
			n++
			s.handle(line, n)
		case rerr := <-readErr:
			// The client has gone: what it started finishes, unless a signal ends it first.
			s.Dialogs.close()
			done := s.runEnded()
			select {
			case <-done:
			case <-ctx.Done():
				s.abort()
				return ctx.Err()
			case <-s.sessCtx.Done():
				s.abort()
				return ErrStopped
			}
			s.waitBash()
			if rerr != io.EOF {
				return fmt.Errorf("reading commands: %w", rerr)
			}
			return nil
		}
	}
}

// open makes sess the current session: its header goes out, its agent is built.
func (s *Server) open(ctx context.Context, sess *Session) {
	s.wmu.Lock()
	w := s.out
	if sess.Events != nil {
		w = teeWriter{s.out, sess.Events}
	}
	s.events = codec.NewLineWriter(w)
	// The header is the session's first line, before anything it is asked; it says the
	// sandbox of this process, which the file of a session switched to cannot know.
	h := *sess.Header
	h.Sandbox = s.host.Sandbox().Header()
	chain := s.host.Chain(h)
	s.stream = chain
	chain.Push(stages.EventFrame(&h), s.writeFrame)
	if loaded := s.host.Skills().Event(); loaded != nil {
		chain.Push(stages.EventFrame(loaded), s.writeFrame) // the skills found, after the header
	}
	s.wmu.Unlock()

	s.obs.Lock()
	s.mirror = append([]codec.Message(nil), sess.History...)
	s.resync, s.compacting, s.retrying, s.compaction = false, false, false, nil
	s.obs.Unlock()

	emit := func(e codec.Event) error {
		s.observe(e)
		s.wmu.Lock()
		defer s.wmu.Unlock()
		return chain.Push(stages.EventFrame(e), s.writeFrame)
	}
	ag := s.host.NewAgent(sess, emit)
	name := ""
	if entries, err := s.host.Entries(sess); err == nil {
		name = sessionName(entries)
	}
	sessCtx := ctx
	if sess.Manage != nil {
		sessCtx = sess.Manage(ctx, ag)
	}
	s.mu.Lock()
	first := s.sess == nil
	s.sess, s.sessCtx, s.ag, s.chain, s.name = sess, sessCtx, ag, chain, name
	if first {
		s.set = settings{model: ag.Model(), thinking: ag.ThinkingLevel(), autoCompaction: ag.AutoCompaction(),
			retry: ag.Retry(), autoRetry: ag.Retry().MaxRetries > 0}
		s.set.prov = nil // the agent's own until the client picks another model
	}
	s.syncLocked()
	s.mu.Unlock()
	s.applyQueueModes()
}

// writeFrame writes what comes out of the chain: events to the stream and its copy, our own
// lines to the stream only.
func (s *Server) writeFrame(f *stages.Frame) error {
	switch f.Type() {
	case "response", "extension_ui_request":
		return f.WriteLine(s.resp)
	}
	return f.WriteLine(s.events)
}

// teeWriter copies the stream to a second writer whose failures do not stop the stream.
type teeWriter struct {
	w    io.Writer
	copy io.Writer
}

func (t teeWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err == nil {
		t.copy.Write(p)
	}
	return n, err
}

// Close ends the stream of the current session and closes it, recording the exit status the
// process will have and its reason (for attach).
func (s *Server) Close(code int, reason string) error { return s.closeSession(code, reason) }

// Run serves the commands of in (Serve), then closes the session with the status the
// server exits with, which it returns as the error: the end of stdin lets the current run
// finish (0); `stop` exits 1 ("stopped by request"); a stop signal its own status (130, 143,
// 129); a failure 1. A session that could not be opened keeps its own status (2), before
// any line. received reports the stop signal received, nil while none has.
func (s *Server) Run(ctx context.Context, in io.Reader, received func() os.Signal) error {
	err := s.Serve(ctx, in)
	if _, startup := errors.AsType[*exitcode.Error](err); startup {
		return err
	}
	code, msg, bySignal := exitcode.Signal(received())
	switch {
	case errors.Is(err, ErrStopped):
		err = exitcode.New(exitcode.Failure, "stopped by request")
	case bySignal:
		err = exitcode.New(code, msg)
	case err != nil:
		err = exitcode.New(exitcode.Failure, err.Error())
	}
	code, msg = exitcode.Of(err)
	if cerr := s.Close(code, msg); cerr != nil && err == nil {
		err = exitcode.New(exitcode.Failure, cerr.Error())
	}
	return err
}

// closeSession flushes the session's chain and closes it.
func (s *Server) closeSession(code int, reason string) error {
	s.mu.Lock()
	sess, chain := s.sess, s.chain
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	s.wmu.Lock()
	err := chain.Flush(s.writeFrame)
	s.wmu.Unlock()
	if sess.Close != nil {
		if cerr := sess.Close(code, reason); err == nil {
			err = cerr
		}
	}
	return err
}

// observe follows what the stream tells about the session: its messages, compactions and
// retries.
func (s *Server) observe(e codec.Event) {
	s.obs.Lock()
	defer s.obs.Unlock()
	switch e := e.(type) {
	case *codec.MessageEnd:
		s.mirror = append(s.mirror, e.Message)
	case *codec.CompactionStart:
		s.compacting = true
	case *codec.CompactionEnd:
		s.compacting = false
		if e.Result != nil {
			s.resync, s.compaction = true, e.Result
		}
	case *codec.AutoRetryStart:
		s.retrying = true
	case *codec.AutoRetryEnd:
		s.retrying = false
	case *codec.AgentStart:
		s.retrying, s.agentEnded = false, false
	case *codec.AgentEnd:
		s.agentEnded = true
	}
}

// syncLocked gives the agent the settings the client chose, when no run is using it.
func (s *Server) syncLocked() {
	if s.streaming {
		return
	}
	ag := s.ag
	if s.set.prov != nil && ag.Model() != s.set.model {
		ag.SetModel(s.set.model, s.set.prov)
	}
	if ag.ThinkingLevel() != s.set.thinking {
		ag.SetThinkingLevel(s.set.thinking)
	}
	ag.SetAutoCompaction(s.set.autoCompaction)
	r := s.set.retry
	if !s.set.autoRetry {
		r.MaxRetries = 0
	}
	ag.SetRetry(r)
	for _, m := range s.pending {
		ag.AddMessage(m)
	}
	s.pending = nil
}

// messages returns the conversation as the client sees it.
func (s *Server) messages() []codec.Message {
	s.obs.Lock()
	defer s.obs.Unlock()
	return append([]codec.Message(nil), s.mirror...)
}

// tryRun starts work (a prompt or a compaction) on the agent in the background if no run is
// going, and reports whether it did. accepted, when not nil, is called first (the command's
// response, which so comes before the run's events). Checking and starting under one lock,
// commands and `send` can never start two runs at once.
func (s *Server) tryRun(accepted func(), work func(ctx context.Context, ag *agent.Agent)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.awaitEndingRunLocked()
	if s.streaming {
		return false
	}
	ctx, cancel := context.WithCancelCause(s.sessCtx)
	done := make(chan struct{})
	s.streaming, s.runCancel, s.runDone = true, cancel, done
	ag := s.ag
	if accepted != nil {
		accepted()
	}
	go func() {
		defer close(done)
		defer cancel(nil)
		work(ctx, ag)
		s.obs.Lock()
		resync := s.resync
		s.resync = false
		s.obs.Unlock()
		s.mu.Lock()
		s.streaming = false
		if resync {
			// A compaction replaced older messages by its summary: the context is the agent's.
			s.obs.Lock()
			s.mirror = ag.Messages()
			s.obs.Unlock()
		}
		s.syncLocked()
		s.mu.Unlock()
	}()
	return true
}

// runEnded returns a channel closed once no run is going.
func (s *Server) runEnded() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runDone == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.runDone
}

// errAborted is why a run the client aborted stopped, for what it interrupted.
var errAborted = errors.New("aborted by the client")

// abort cancels the running prompt or compaction and waits for it to end.
func (s *Server) abort() {
	s.mu.Lock()
	cancel, done := s.runCancel, s.runDone
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel(errAborted)
	<-done
}

// awaitEndingRunLocked waits, with mu held on entry and on return, for a run that has
// written its agent_end to end: a client that has read agent_end may send its next command at
// once, and the run has only its bookkeeping left, so the command finds the agent idle
// instead of being told that it streams.
func (s *Server) awaitEndingRunLocked() {
	for s.streaming && s.runHasEnded() {
		done := s.runDone
		s.mu.Unlock()
		<-done
		s.mu.Lock()
	}
}

// runHasEnded reports whether the run going has written its agent_end.
func (s *Server) runHasEnded() bool {
	s.obs.Lock()
	defer s.obs.Unlock()
	return s.agentEnded
}

func (s *Server) isStreaming() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.awaitEndingRunLocked()
	return s.streaming
}

func (s *Server) abortBash() {
	s.bashMu.Lock()
	cancel := s.bashCancel
	s.bashMu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.waitBash()
}

func (s *Server) waitBash() {
	s.bashMu.Lock()
	done := s.bashDone
	s.bashMu.Unlock()
	if done != nil {
		<-done
	}
}

// respond writes the response to c.
func (s *Server) respond(c command, name string, data []byte, err error) {
	s.writeLine(appendResponse(nil, c, name, data, err))
}
