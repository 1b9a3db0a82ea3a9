package control

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basecontext/base-context/agent/session"
)

// Queue is what `send` and `status` reach in a running agent (agent.Agent has it).
type Queue interface {
	// Offer queues a message: steer at the next turn boundary, else as a follow-up. It
	// refuses once the agent has decided to end.
	Offer(steer bool, text string) error
	Queued() (steering, followUps []string)
}

// Run is a run's place in the registry: its entry and the control socket through which
// `stop`, `send` and `status` reach it. It is the socket's Handler.
type Run struct {
	dir      string
	entry    Entry
	server   *Server
	resident *Resident
	events   *os.File // the stream a registered rpc session keeps for attach

	// Deliver, when set, takes what `send` queues instead of the agent: the rpc mode, whose
	// idle agent starts a run with it.
	Deliver func(steer bool, text string) error

	mu        sync.Mutex
	queue     Queue
	cancel    context.CancelCauseFunc
	stopped   atomic.Bool
	closeOnce sync.Once
}

// Start lists the run of session id, working in cwd and writing sessionFile ("" in memory),
// in the registry dir with a control socket. A resident run (r not nil) also opens its
// events file there. The Run is usable even when registering failed (the error says why):
// then nobody can find it.
func Start(dir, id, cwd, sessionFile string, r *Resident) (*Run, error) {
	run := &Run{dir: dir, resident: r}
	run.entry.ID, run.entry.Session = id, sessionFile
	return run, run.register(cwd)
}

func (run *Run) register(cwd string) error {
	if err := MakeDir(run.dir); err != nil {
		return err
	}
	socket, err := SocketPath(run.dir, run.entry.ID)
	if err != nil {
		return err
	}
	run.entry.PID, run.entry.Socket, run.entry.Cwd = os.Getpid(), socket, cwd
	run.entry.Start = session.NowISO(time.Now())
	run.entry.Mode = ModeClient
	if run.resident != nil {
		run.entry.Mode = ModeResident
		run.entry.Events = EventsPath(run.dir, run.entry.ID)
		// A new stream replaces the one of an earlier detached run of this session, before
		// anyone can find the run and attach to it.
		if err := run.resident.open(run.dir); err != nil {
			return err
		}
		run.resident.run = run
	}
	srv, err := Listen(socket, run)
	if err != nil {
		return err
	}
	if err := Register(run.dir, run.entry); err != nil {
		srv.Close()
		return err
	}
	run.server = srv
	return nil
}

// Registered reports whether the run is in the registry.
func (run *Run) Registered() bool { return run.server != nil }

// Manage hands the run's context and agent to the control socket: `stop` cancels the
// returned context, `send` queues into q.
func (run *Run) Manage(ctx context.Context, q Queue) context.Context {
	ctx, cancel := context.WithCancelCause(ctx)
	run.mu.Lock()
	run.queue, run.cancel = q, cancel
	run.mu.Unlock()
	if run.stopped.Load() {
		cancel(errStopRequested)
	}
	return ctx
}

// StoppedByRequest reports whether `stop` asked the run to stop.
func (run *Run) StoppedByRequest() bool { return run.stopped.Load() }

// Stop is the control socket's stop: the run aborts as on SIGINT.
func (run *Run) Stop() error {
	run.stopped.Store(true)
	run.mu.Lock()
	cancel := run.cancel
	run.mu.Unlock()
	if cancel != nil {
		cancel(errStopRequested)
	}
	return nil
}

// errStopRequested is why a run that `stop` ended stopped, for what it interrupted.
var errStopRequested = errors.New("stopped by `base-context stop`")

// Send is the control socket's send: the message joins the agent's queue.
func (run *Run) Send(kind, text string) error {
	if text == "" {
		return errors.New("empty message")
	}
	run.mu.Lock()
	q := run.queue
	run.mu.Unlock()
	if q == nil {
		return errors.New("the run is still starting: try again")
	}
	if run.stopped.Load() {
		return errors.New("the run is stopping")
	}
	if run.Deliver != nil {
		return run.Deliver(kind == KindSteer, text)
	}
	// Refused, not lost, once the run has decided to end.
	return q.Offer(kind == KindSteer, text)
}

// RunStatus is what the control socket's status reports.
type RunStatus struct {
	Entry
	Steering  int  `json:"steering"`
	FollowUps int  `json:"followUps"`
	Stopping  bool `json:"stopping"`
}

// Status is the control socket's status.
func (run *Run) Status() any {
	st := RunStatus{Entry: run.entry, Stopping: run.stopped.Load()}
	run.mu.Lock()
	q := run.queue
	run.mu.Unlock()
	if q != nil {
		steer, follow := q.Queued()
		st.Steering, st.FollowUps = len(steer), len(follow)
	}
	return st
}

// OpenEvents starts the stream a registered session keeps for attach, replacing an earlier
// run's stream and exit record; nil when the run is not registered.
func (run *Run) OpenEvents() (*os.File, error) {
	if run.server == nil {
		return nil, nil
	}
	f, err := os.OpenFile(EventsPath(run.dir, run.entry.ID), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	os.Remove(ExitPath(run.dir, run.entry.ID))
	run.events = f
	return f, nil
}

// End closes the run's stream, if it keeps one, and records how it ended (code and reason,
// for attach) before it leaves the registry: a client that finds neither the entry nor the
// record knows the run died without one.
func (run *Run) End(code int, reason string) error {
	var err error
	if run.events != nil {
		run.events.Close()
		err = WriteExit(run.dir, run.entry.ID, Exit{Code: code, Error: reason})
	}
	run.Close()
	return err
}

// Close removes the run from the registry, which tells a waiting `stop` that the run has
// ended. A resident run stays until its Resident ends it, its exit status recorded.
func (run *Run) Close() {
	if run.resident != nil {
		return
	}
	run.unregister()
}

func (run *Run) unregister() {
	run.closeOnce.Do(func() {
		if run.server != nil {
			Unregister(run.dir, run.entry.ID)
			run.server.Close()
		}
	})
}
