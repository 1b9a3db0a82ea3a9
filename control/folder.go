package control

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/internal/exitcode"
)

// Folder is the folder of saved sessions the sessions commands and a run use: --session-dir,
// else the home's. The failures of its methods carry their exit statuses.
type Folder struct {
	Dir  string // the folder
	Home Home
	// Chosen: the user named the folder, or has a home of their own (HasHome); without
	// either it is a stand-in in the temporary directory, where nothing is kept.
	Chosen bool
	// Warn receives the warnings about what a session file holds.
	Warn func(path, warning string)
}

// ErrNoHome is why sessions cannot be saved, nor looked for, without a home folder.
var ErrNoHome = exitcode.New(exitcode.Usage, "neither HOME nor BASE_CONTEXT_HOME is set, so there is no place to save sessions: "+
	"set BASE_CONTEXT_HOME to a folder for them, or run with --no-session")

// Check refuses to look for sessions in the stand-in home of a user without one.
func (f Folder) Check() error {
	if !f.Chosen {
		return ErrNoHome
	}
	return nil
}

// Find resolves an id or prefix among the saved sessions (FindSaved).
func (f Folder) Find(query string) (string, error) {
	if err := f.Check(); err != nil {
		return "", err
	}
	path, err := FindSaved(f.Dir, query)
	return path, exitcode.Wrap(exitcode.Usage, err)
}

// FileError is the error of a session file that cannot be created in the folder: it names
// the folder and says what to do.
func (f Folder) FileError(err error) error {
	return exitcode.New(exitcode.Usage, fmt.Sprintf("cannot save sessions in %s: %v; set BASE_CONTEXT_HOME (or --session-dir) to a writable folder, or run with --no-session",
		f.Dir, err))
}

// List writes the sessions of the working directory (all: of every directory), newest
// activity first, at most limit of them ("": 50, "0": every one) (ListSessions,
// WriteListings); the files it cannot read are warnings on stderr, and so is a cut list.
func (f Folder) List(out, stderr io.Writer, all, asJSON bool, limitFlag string) error {
	limit, err := strconv.Atoi(cmp.Or(limitFlag, "50"))
	if err != nil || limit < 0 {
		return exitcode.New(exitcode.Usage, fmt.Sprintf("--limit %q: expected a number of sessions, 0 for all", limitFlag))
	}
	if err := f.Check(); err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	rows, total, problems, err := ListSessions(f.Dir, f.Home.Registry(), cwd, all, limit)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "warning: %v\n", p)
	}
	if len(rows) < total {
		fmt.Fprintf(stderr, "the newest %d of %d sessions (--limit 0 lists them all)\n", len(rows), total)
	}
	return WriteListings(out, rows, all, asJSON)
}

// Show writes the session query names (ShowSession).
func (f Folder) Show(out io.Writer, query string, o ShowOptions) error {
	if o.Deltas && !o.Events {
		return exitcode.New(exitcode.Usage, "--json-deltas requires --events")
	}
	path, err := f.Find(query)
	if err != nil {
		return err
	}
	o.Warn = f.Warn
	return ShowSession(out, path, o)
}

// Remove deletes the session query names (RemoveSession); what goes with it and cannot be
// removed is a warning on stderr. A running session is a usage error.
func (f Folder) Remove(stderr io.Writer, query string) error {
	path, err := f.Find(query)
	if err != nil {
		return err
	}
	warnings, err := RemoveSession(path, f.Home.Registry(), f.Home.Outputs)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if _, running := errors.AsType[*RunningError](err); running {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return exitcode.Wrap(exitcode.Failure, err)
}

// OpenRun gives a run its session in the folder and registers it (Source.OpenRun), with
// the exit statuses of its failures: a resident run that cannot register, and a session
// file that cannot be created (FileError), are usage errors.
func (f Folder) OpenRun(s *Source, o OpenOptions, resident *Resident, warn func(error)) (*Registered, error) {
	o.Dir = f.Dir
	r, err := s.OpenRun(o, f.Home.Registry(), resident, warn)
	if _, unregistered := errors.AsType[*RegisterError](err); unregistered {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	if err != nil {
		return nil, f.FileError(err)
	}
	return r, nil
}

// Prune removes the saved sessions whose last activity is older than cutoff, but for the
// keep newest ones (of every directory), and never one a run is writing (RemoveSession);
// with dryRun it only says which. How many and how many bytes go on stderr.
func (f Folder) Prune(stderr io.Writer, cutoff time.Time, keep int, dryRun bool) error {
	if err := f.Check(); err != nil {
		return err
	}
	infos, problems, err := session.List(f.Dir)
	if err != nil {
		return exitcode.Wrap(exitcode.Failure, err)
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "warning: %v (not pruned)\n", p)
	}
	removed, kept, bytes := 0, 0, int64(0)
	for i, in := range infos { // newest first
		last, err := time.Parse(time.RFC3339Nano, in.LastActivity)
		if i < keep || err != nil || !last.Before(cutoff) {
			continue
		}
		st, err := os.Stat(in.Path)
		if err != nil {
			continue
		}
		if dryRun {
			if locked, _ := session.Locked(in.Path); !locked {
				fmt.Fprintf(stderr, "would remove %s (last activity %s)\n", in.ID, in.LastActivity)
				removed, bytes = removed+1, bytes+st.Size()
			}
			continue
		}
		warnings, err := RemoveSession(in.Path, f.Home.Registry(), f.Home.Outputs)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "warning: %v\n", w)
		}
		if _, running := errors.AsType[*RunningError](err); running {
			kept++
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "warning: %v\n", err)
			continue
		}
		removed, bytes = removed+1, bytes+st.Size()
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	fmt.Fprintf(stderr, "%s %d sessions, %d bytes", verb, removed, bytes)
	if kept > 0 {
		fmt.Fprintf(stderr, " (%d running, kept)", kept)
	}
	fmt.Fprintln(stderr)
	return nil
}
