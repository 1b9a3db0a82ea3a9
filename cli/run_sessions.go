package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
)

// SessionFlags choose the session a run continues and the run's lifetime.
type SessionFlags struct {
	Resume   string `placeholder:"ID" xor:"which-session" help:"Continue the saved session ID (or a unique prefix of it): its history is the context, the run appends to its file, and the stream's header is the session's own."`
	Continue bool   `xor:"which-session" help:"Continue the newest session of this directory."`
	Fork     string `placeholder:"ID" xor:"which-session" help:"Start a new session from a copy of session ID's conversation; its header names ID as parentSession."`
	Detach   bool   `help:"Run in the background, outliving the terminal: print only the session header and exit 0; the stream goes to $BASE_CONTEXT_HOME/run/<id>.events.jsonl (see attach)."`

	life     *runSession // the run's session, once open
	resident *resident   // set in the background process of a --detach run
}

// residentEnv passes a detached run's session id to its background process. Its presence
// (with --detach) is what makes a process the background one; the process removes it from
// its environment at once, so that commands its tools run do not inherit it.
const residentEnv = "BASE_CONTEXT_RESIDENT_ID"

// registryDir is the folder of the run registry: <home>/run.
func registryDir(streams *IO) string { return filepath.Join(homeDir(streams), "run") }

// sessionPlan is which session a run writes: a new one, a saved one it resumes, or a fork
// of a saved one.
type sessionPlan struct {
	kind string // "new", "resume" or "fork"
	id   string // the run's session id
	path string // resume: the session file; fork: the parent's file
}

// planSession resolves --resume, --continue and --fork. id, when set, is the session id the
// foreground process of a --detach run chose.
func (c *RunCmd) planSession(streams *IO, cwd, id string) (sessionPlan, error) {
	if c.NoSession && (c.Resume != "" || c.Continue || c.Fork != "") {
		return sessionPlan{}, Fail(ExitUsage, "--resume, --continue and --fork work on saved sessions: they exclude --no-session")
	}
	dir := c.sessionDir(streams)
	switch {
	case id != "" && (c.Resume != "" || c.Continue):
		return sessionPlan{kind: "resume", id: id, path: filepath.Join(dir, id+".jsonl")}, nil
	case c.Resume != "":
		path, err := session.Find(dir, c.Resume)
		if err != nil {
			return sessionPlan{}, findError(err, dir)
		}
		h, err := session.ReadHeader(path)
		if err != nil {
			return sessionPlan{}, Fail(ExitUsage, err.Error())
		}
		if !sameDir(h.Cwd, cwd) {
			return sessionPlan{}, Fail(ExitUsage, fmt.Sprintf(
				"session %s belongs to %s, not to this directory (%s): resume it from there, or --fork it here", h.ID, h.Cwd, cwd))
		}
		return sessionPlan{kind: "resume", id: h.ID, path: path}, nil
	case c.Continue:
		info, ok, err := session.Newest(dir, func(h *codec.Header) bool { return sameDir(h.Cwd, cwd) })
		if err != nil {
			return sessionPlan{}, Fail(ExitUsage, err.Error())
		}
		if !ok {
			return sessionPlan{}, Fail(ExitUsage, fmt.Sprintf("no saved session of this directory (%s) in %s to continue", cwd, dir))
		}
		return sessionPlan{kind: "resume", id: info.ID, path: info.Path}, nil
	case c.Fork != "":
		path, err := session.Find(dir, c.Fork)
		if err != nil {
			return sessionPlan{}, findError(err, dir)
		}
		if id == "" {
			id = session.NewID()
		}
		return sessionPlan{kind: "fork", id: id, path: path}, nil
	}
	if id == "" {
		id = session.NewID()
	}
	return sessionPlan{kind: "new", id: id}, nil
}

// findError turns a failed session lookup into the usage error that explains it.
func findError(err error, dir string) error {
	var nf *session.NotFoundError
	if errors.As(err, &nf) && len(nf.Closest) == 0 {
		return Fail(ExitUsage, fmt.Sprintf("no session %q: there are no saved sessions in %s", nf.Query, dir))
	}
	return Fail(ExitUsage, err.Error())
}

// sameDir reports whether two paths name the same directory, symbolic links resolved.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// savedModel is the model of the saved session the run continues (--resume, --continue,
// --fork) as "provider/id", "" for a new session or one that names none. A lookup that
// fails is left for openSession to report.
func (c *RunCmd) savedModel(streams *IO, cwd string) string {
	if c.Resume == "" && !c.Continue && c.Fork == "" {
		return ""
	}
	plan, err := c.planSession(streams, cwd, "")
	if err != nil || plan.path == "" {
		return ""
	}
	l, err := session.Read(plan.path)
	if err != nil || l.ModelID == "" {
		return ""
	}
	return l.Provider + "/" + l.ModelID
}

// runSession is the session a run writes and the run's place in the registry: its entry and
// control socket, through which `stop` and `send` reach it.
type runSession struct {
	Header  *codec.Header
	Store   session.Store
	History []codec.Message // the conversation the run continues (nil for a new session)
	// HistoryIDs are the session entry ids of History, so a compaction can name them.
	HistoryIDs []string
	// Undelivered are the messages sent to the session's last run that it could not
	// deliver: they open this run's first turn, before its prompt.
	Undelivered []session.Undelivered

	regDir   string
	entry    control.Entry
	server   *control.Server
	resident *resident

	// deliver, when set, takes what `send` queues instead of the agent: the rpc mode, whose
	// idle agent starts a run with it.
	deliver func(steer bool, text string) error

	mu        sync.Mutex
	agent     *agent.Agent
	cancel    context.CancelFunc
	stopped   atomic.Bool
	closeOnce sync.Once
}

// openSession opens the run's session as the flags say and registers the run. A saved
// session being written by another run is a usage error (exit 2), as is a lookup that
// fails. The caller must Close it.
func (c *RunCmd) openSession(streams *IO, cwd string) (*runSession, error) {
	fixedID := ""
	if c.resident != nil {
		fixedID = c.resident.id
	}
	plan, err := c.planSession(streams, cwd, fixedID)
	if err != nil {
		return nil, err
	}
	catchFileSizeLimit()
	s := &runSession{regDir: registryDir(streams), resident: c.resident}
	warn := func(path string, warnings []string) {
		for _, w := range warnings {
			fmt.Fprintf(streams.Err, "warning: %s: %s\n", path, w)
		}
	}
	now := session.NowISO(time.Now())
	switch plan.kind {
	case "new":
		s.Header = &codec.Header{Version: session.Version, ID: plan.id, Timestamp: now, Cwd: cwd}
		if c.NoSession {
			s.Store = session.NewMemory()
		} else {
			f, err := session.Create(c.sessionDir(streams), *s.Header)
			if err != nil {
				return nil, c.sessionFileError(streams, err)
			}
			s.Store, s.entry.Session = f, f.Path()
		}
	case "resume":
		f, l, err := session.Resume(plan.path)
		if err != nil {
			return nil, s.openError(plan.id, err)
		}
		warn(plan.path, l.Warnings)
		h := l.Header
		s.Header, s.Store, s.History, s.HistoryIDs, s.entry.Session = &h, f, l.Context(), l.ContextEntryIDs(), f.Path()
		s.Undelivered = l.Undelivered()
	case "fork":
		parent, err := session.Read(plan.path)
		if err != nil {
			return nil, Fail(ExitUsage, err.Error())
		}
		warn(plan.path, parent.Warnings)
		s.Header = &codec.Header{Version: session.Version, ID: plan.id, Timestamp: now, Cwd: cwd, ParentSession: parent.Header.ID}
		f, err := session.CreateFork(c.sessionDir(streams), *s.Header, parent, c.RedactFlags.sessionLines())
		if err != nil {
			return nil, c.sessionFileError(streams, err)
		}
		s.Store, s.History, s.HistoryIDs, s.entry.Session = f, parent.Context(), parent.ContextEntryIDs(), f.Path()
		s.Undelivered = parent.Undelivered()
	}
	if err := s.register(cwd); err != nil {
		if s.resident != nil {
			// A background run nobody can find, attach to or stop must not start.
			s.Store.Close()
			return nil, Fail(ExitUsage, "cannot register the run: "+err.Error())
		}
		fmt.Fprintf(streams.Err, "warning: cannot register the run, so list, stop, send and attach will not find it: %v\n", err)
	}
	if s.resident != nil {
		s.resident.announce(s.Header)
	}
	c.life = s
	return s, nil
}

// opening is the messages that open the run's first turn: what the session's last run left
// undelivered, in the order it was sent, then the prompt. A session command (/compact) runs
// alone: the undelivered messages wait for the next resume.
func (s *runSession) opening(prompt string) []*codec.UserMessage {
	now := time.Now().UnixMilli()
	user := &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: prompt}}, Timestamp: now}
	if agent.IsSessionCommand(user) {
		return []*codec.UserMessage{user}
	}
	msgs := make([]*codec.UserMessage, 0, len(s.Undelivered)+1)
	for _, u := range s.Undelivered {
		msgs = append(msgs, &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: u.Text}}, Timestamp: now})
	}
	return append(msgs, user)
}

// openError explains why a saved session cannot be resumed.
func (s *runSession) openError(id string, err error) error {
	if errors.Is(err, session.ErrLocked) {
		who := "another run"
		if e, ok := control.Get(s.regDir, id); ok {
			who = fmt.Sprintf("another run (pid %d)", e.PID)
		}
		return Fail(ExitUsage, fmt.Sprintf("session %s is being written by %s: wait for it to end, stop it (base-context stop %s) or --fork it", id, who, id))
	}
	return Fail(ExitUsage, err.Error())
}

// register lists the run in the registry with a control socket.
func (s *runSession) register(cwd string) error {
	if err := control.MakeDir(s.regDir); err != nil {
		return err
	}
	socket, err := control.SocketPath(s.regDir, s.Header.ID)
	if err != nil {
		return err
	}
	s.entry.ID, s.entry.PID, s.entry.Socket, s.entry.Cwd = s.Header.ID, os.Getpid(), socket, cwd
	s.entry.Start = session.NowISO(time.Now())
	s.entry.Mode = control.ModeClient
	if s.resident != nil {
		s.entry.Mode = control.ModeResident
		s.entry.Events = control.EventsPath(s.regDir, s.Header.ID)
		// A new stream replaces the one of an earlier detached run of this session, before
		// anyone can find the run and attach to it.
		if err := s.resident.open(s.regDir); err != nil {
			return err
		}
	}
	srv, err := control.Listen(socket, s)
	if err != nil {
		return err
	}
	if err := control.Register(s.regDir, s.entry); err != nil {
		srv.Close()
		return err
	}
	s.server = srv
	return nil
}

// Manage hands the run's context and agent to the control socket: `stop` cancels the
// returned context, `send` queues into the agent.
func (s *runSession) Manage(ctx context.Context, ag *agent.Agent) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.agent, s.cancel = ag, cancel
	s.mu.Unlock()
	if s.stopped.Load() {
		cancel()
	}
	return ctx
}

// StoppedByRequest reports whether `stop` asked the run to stop.
func (s *runSession) StoppedByRequest() bool { return s.stopped.Load() }

// Stop is the control socket's stop: the run aborts as on SIGINT.
func (s *runSession) Stop() error {
	s.stopped.Store(true)
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// Send is the control socket's send: the message joins the agent's queue.
func (s *runSession) Send(kind, text string) error {
	if text == "" {
		return errors.New("empty message")
	}
	s.mu.Lock()
	ag := s.agent
	s.mu.Unlock()
	if ag == nil {
		return errors.New("the run is still starting: try again")
	}
	if s.stopped.Load() {
		return errors.New("the run is stopping")
	}
	if s.deliver != nil {
		return s.deliver(kind == control.KindSteer, text)
	}
	// Refused, not lost, once the run has decided to end.
	return ag.Offer(kind == control.KindSteer, text)
}

// runStatus is what the control socket's status reports.
type runStatus struct {
	control.Entry
	Steering  int  `json:"steering"`
	FollowUps int  `json:"followUps"`
	Stopping  bool `json:"stopping"`
}

// Status is the control socket's status.
func (s *runSession) Status() any {
	st := runStatus{Entry: s.entry, Stopping: s.stopped.Load()}
	s.mu.Lock()
	ag := s.agent
	s.mu.Unlock()
	if ag != nil {
		steer, follow := ag.Queued()
		st.Steering, st.FollowUps = len(steer), len(follow)
	}
	return st
}

// Close closes the session file, then (for a run owned by its client) removes the run from
// the registry, which tells a waiting `stop` that the run has ended. A background run is
// removed by detachedRun, once its exit status is recorded.
func (s *runSession) Close() error {
	err := s.Store.Close()
	if s.resident == nil {
		s.unregister()
	}
	return err
}

func (s *runSession) unregister() {
	s.closeOnce.Do(func() {
		if s.server != nil {
			control.Unregister(s.regDir, s.entry.ID)
			s.server.Close()
		}
	})
}

// startDetached is `--detach` in the foreground: it starts the run again as a background
// process in a session of its own, relays what the run reports while it starts (errors,
// warnings), prints the header the run announces once it is registered, and exits 0; a run
// that fails to start exits with the run's status instead.
func (c *RunCmd) startDetached(streams *IO) error {
	cwd, err := os.Getwd()
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	workDir, err := c.workDir()
	if err != nil {
		return err
	}
	plan, err := c.planSession(streams, workDir, "")
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return Fail(ExitUsage, "cannot start the background run: "+err.Error())
	}
	hsRead, hsWrite, err := os.Pipe()
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	errRead, errWrite, err := os.Pipe()
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	// The background process runs our own command line again (argv[0] kept, so a binary
	// that dispatches on its name, like the test binary, behaves the same).
	cmd := &exec.Cmd{Path: exe, Args: os.Args, Dir: cwd,
		Env: append(os.Environ(), residentEnv+"="+plan.id), Stderr: errWrite,
		ExtraFiles:  []*os.File{hsWrite},
		SysProcAttr: newSessionAttr()}
	if !streams.StdinIsTerminal && streams.In != nil {
		cmd.Stdin = streams.In // the run reads its prompt input at startup, as in the foreground
	}
	err = cmd.Start()
	hsWrite.Close()
	errWrite.Close()
	if err != nil {
		hsRead.Close()
		errRead.Close()
		return Fail(ExitUsage, "cannot start the background run: "+err.Error())
	}
	relayed := make(chan struct{})
	go func() {
		io.Copy(streams.Err, errRead)
		close(relayed)
	}()
	header, _ := io.ReadAll(hsRead)
	hsRead.Close()
	<-relayed // the run lets go of its stderr once announced, or when it ends
	errRead.Close()
	if n := len(header); n > 0 && header[n-1] == '\n' {
		cmd.Process.Release()
		_, err := streams.Out.Write(header)
		return err
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return Fail(ee.ExitCode(), "") // the run said why on the stderr relayed above
	}
	if err != nil {
		return Fail(ExitFailure, "the background run failed to start: "+err.Error())
	}
	return Fail(ExitFailure, "the background run ended without announcing itself")
}

// resident is the background process of a --detach run: its stream goes to the events
// file, and it announces itself to the foreground process through the handshake pipe.
type resident struct {
	id        string
	handshake *os.File // fd 3, from the foreground; nil once announced
	announced bool
	dir       string
	events    *os.File
}

// detachedRun runs the agent as the background process of a --detach run.
func (c *RunCmd) detachedRun(streams *IO, id string) error {
	os.Unsetenv(residentEnv)
	r := &resident{id: id, handshake: os.NewFile(3, "handshake")}
	if st, err := r.handshake.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return Fail(ExitUsage, "--detach: "+residentEnv+" is set but no foreground process started this one")
	}
	closeOnExec(3)
	defer func() {
		if r.handshake != nil {
			r.handshake.Close()
		}
	}()
	c.resident = r
	c.Mode = "json" // the events file holds the JSON stream, whatever the foreground printed
	out := *streams
	out.Out = r
	err := c.run(streams.signals.context(), &out)
	if r.events != nil {
		r.events.Close()
	}
	if !r.announced {
		// Nobody heard of this run: it leaves nothing behind.
		if r.events != nil {
			os.Remove(control.EventsPath(r.dir, id))
		}
		return err
	}
	// The exit record comes before the registry entry goes: a client that finds neither
	// knows the run died without one.
	code, msg := exitCode(err)
	if werr := control.WriteExit(r.dir, id, control.Exit{Code: code, Error: msg}); werr != nil && err == nil {
		err = werr
	}
	c.life.unregister()
	return err
}

// open creates the events file, replacing the stream and exit record of an earlier
// detached run of the same session (whose file lock this run holds now).
func (r *resident) open(dir string) error {
	r.dir = dir
	control.Prune(dir, time.Now().Add(-control.KeepEnded)) // each new stream tidies up old ones
	if err := os.Remove(control.ExitPath(dir, r.id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(control.EventsPath(dir, r.id), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	r.events = f
	return nil
}

// Write is the run's stdout: the events file. A failed write ends the run (the agent stops
// when its stream cannot be written) with the cause in its exit record, for attach.
func (r *resident) Write(p []byte) (int, error) {
	if r.events == nil {
		return 0, errors.New("the events file is not open")
	}
	n, err := r.events.Write(p)
	if err != nil {
		err = Fail(ExitFailure, "cannot save the session: "+err.Error())
	}
	return n, err
}

// announce gives the foreground process the header line, then lets go of the terminal's
// stderr: the foreground exits once both pipes are closed.
func (r *resident) announce(h *codec.Header) {
	if r.handshake == nil {
		return
	}
	r.handshake.Write(append(h.AppendJSON(nil), '\n'))
	r.handshake.Close()
	r.handshake = nil
	r.announced = true
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		redirectFD(null, 2)
		null.Close()
	}
}

// detach is `--detach`: the foreground process starts the run in the background, which
// is this same command run again with residentEnv set.
func (c *RunCmd) detach(streams *IO) error {
	if id := streams.Getenv(residentEnv); id != "" {
		return c.detachedRun(streams, id)
	}
	return c.startDetached(streams)
}
