package control

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/exitcode"
)

// A detached run is two processes. The foreground one (StartResident) starts the same
// command line again in the background, in a session of its own, with ResidentEnv naming
// the session id it chose; it relays what the background process reports while it starts
// and exits once that process has announced its header on the handshake pipe (fd 3). The
// background one (AdoptResident) writes its stream to the events file, for attach, and
// records its exit status there when it ends.

// ResidentEnv passes a detached run's session id to its background process. Its presence
// is what makes a process the background one; the process removes it from its environment
// at once, so that commands its tools run do not inherit it.
const ResidentEnv = "BASE_CONTEXT_RESIDENT_ID"

// handshakeFD is the descriptor of the handshake pipe in the background process.
const handshakeFD = 3

// StartResident starts the background process of a detached run of session id: this
// process's command line again, in its working directory, reading stdin (nil: none) and
// reporting on stderr until it announces itself. It returns the header line the process
// announced. A process that started and ended without announcing itself is a
// *NotStartedError (exiting with the run's status); any other error is why it could not be
// started (a usage error, 2).
func StartResident(id string, stdin io.Reader, stderr io.Writer) ([]byte, error) {
	header, err := startResident(id, stdin, stderr)
	if _, ok := errors.AsType[*NotStartedError](err); !ok {
		err = exitcode.Wrap(exitcode.Usage, err)
	}
	return header, err
}

func startResident(id string, stdin io.Reader, stderr io.Writer) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot start the background run: %w", err)
	}
	hsRead, hsWrite, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errRead, errWrite, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// The background process runs our own command line again (argv[0] kept, so a binary
	// that dispatches on its name, like the test binary, behaves the same).
	cmd := &exec.Cmd{Path: exe, Args: os.Args, Stdin: stdin,
		Env: append(os.Environ(), ResidentEnv+"="+id), Stderr: errWrite,
		ExtraFiles:  []*os.File{hsWrite},
		SysProcAttr: newSessionAttr()}
	err = cmd.Start()
	hsWrite.Close()
	errWrite.Close()
	if err != nil {
		hsRead.Close()
		errRead.Close()
		return nil, fmt.Errorf("cannot start the background run: %w", err)
	}
	relayed := make(chan struct{})
	go func() {
		io.Copy(stderr, errRead)
		close(relayed)
	}()
	header, _ := io.ReadAll(hsRead)
	hsRead.Close()
	<-relayed // the run lets go of its stderr once announced, or when it ends
	errRead.Close()
	if n := len(header); n > 0 && header[n-1] == '\n' {
		cmd.Process.Release()
		return header, nil
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return nil, &NotStartedError{Status: ee.ExitCode()}
	}
	if err != nil {
		return nil, &NotStartedError{Err: fmt.Errorf("the background run failed to start: %w", err)}
	}
	return nil, &NotStartedError{Err: errors.New("the background run ended without announcing itself")}
}

// NotStartedError is a background process that ended without announcing itself: with its
// exit status (above 0) when it said why on the stderr relayed, else with Err.
type NotStartedError struct {
	Status int
	Err    error
}

func (e *NotStartedError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}

func (e *NotStartedError) Unwrap() error { return e.Err }

// ExitCode is the status the foreground exits with: the run's own, when it said why.
func (e *NotStartedError) ExitCode() int {
	if e.Status > 0 {
		return e.Status
	}
	return exitcode.Failure
}

// Resident is the background process of a detached run: its stream goes to the events
// file, and it announces itself to the foreground process through the handshake pipe.
type Resident struct {
	ID        string
	handshake *os.File // from the foreground; nil once announced
	announced bool
	dir       string
	events    *os.File
	run       *Run
}

// AdoptResident makes this process the background one of the detached run of session id:
// it takes the handshake pipe the foreground process passed. The caller must End (or
// Finish) it.
func AdoptResident(id string) (*Resident, error) {
	os.Unsetenv(ResidentEnv)
	r := &Resident{ID: id, handshake: os.NewFile(handshakeFD, "handshake")}
	if st, err := r.handshake.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return nil, exitcode.New(exitcode.Usage, "--detach: "+ResidentEnv+" is set but no foreground process started this one")
	}
	closeOnExec(handshakeFD)
	return r, nil
}

// open creates the events file, replacing the stream and exit record of an earlier
// detached run of the same session (whose file lock this run holds now).
func (r *Resident) open(dir string) error {
	r.dir = dir
	Prune(dir, time.Now().Add(-KeepEnded)) // each new stream tidies up old ones
	if err := os.Remove(ExitPath(dir, r.ID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(EventsPath(dir, r.ID), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	r.events = f
	return nil
}

// Write is the run's stdout: the events file. A failed write ends the run (the agent stops
// when its stream cannot be written) with the cause in its exit record, for attach.
func (r *Resident) Write(p []byte) (int, error) {
	if r.events == nil {
		return 0, errors.New("the events file is not open")
	}
	n, err := r.events.Write(p)
	if err != nil {
		err = fmt.Errorf("cannot write the stream for attach: %w", err)
	}
	return n, err
}

// Announce gives the foreground process the header line, then lets go of the terminal's
// stderr: the foreground exits once both pipes are closed.
func (r *Resident) Announce(h *codec.Header) {
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

// Finish is End with the status and message the run's error err exits with; it returns err,
// or End's error when the run had none.
func (r *Resident) Finish(err error) error {
	code, msg := exitcode.Of(err)
	if werr := r.End(code, msg); werr != nil && err == nil {
		return werr
	}
	return err
}

// End closes the stream and records how the run ended (code and reason), before the run
// leaves the registry. A run that never announced itself leaves nothing behind: nobody
// heard of it.
func (r *Resident) End(code int, reason string) error {
	if r.handshake != nil {
		r.handshake.Close()
		r.handshake = nil
	}
	if r.events != nil {
		r.events.Close()
	}
	if !r.announced {
		if r.events != nil {
			os.Remove(EventsPath(r.dir, r.ID))
		}
		return nil
	}
	err := WriteExit(r.dir, r.ID, Exit{Code: code, Error: reason})
	if r.run != nil {
		r.run.unregister()
	}
	return err
}
