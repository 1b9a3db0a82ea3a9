// Package control is the machinery of running sessions: the session a run writes (Choose,
// Load, Open), the run registry and the control channel (Run), detached runs (Resident) and
// attach (Follow). It decides no exit status: the command line wires it and gives its
// errors their statuses.
//
// Each run registers itself as <dir>/<id> (dir is <home>/run): a small JSON file naming its
// process, its working directory, its lifetime and a unix socket on which it takes
// requests (stop, send, status) as JSON lines. An entry is removed when its run ends;
// entries of processes that died without removing theirs are removed by whoever reads them.
//
// Only the user who owns the run may control it: the registry folder is 0700, entries and
// sockets are 0600, and on Linux the server also checks each caller's uid (SO_PEERCRED).
package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/basecontext/base-context/internal/atomicfile"
)

// Lifetimes of a run.
const (
	ModeClient   = "client"   // owned by the process that started it; ends with it
	ModeResident = "resident" // detached: runs in the background, its stream in an events file
)

// Entry describes a running session.
type Entry struct {
	ID      string `json:"id"`
	PID     int    `json:"pid"`
	Start   string `json:"start"` // ISO-8601 UTC with milliseconds
	Socket  string `json:"socket"`
	Cwd     string `json:"cwd"`
	Mode    string `json:"mode"`
	Session string `json:"session,omitempty"` // the session file; none with --no-session
	Events  string `json:"events,omitempty"`  // a resident run's events file
}

// validID reports whether id can name registry files: no separators, no dots (the files
// beside an entry are told apart by their extensions).
func validID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\.`)
}

// EventsPath is where a resident run writes its event stream.
func EventsPath(dir, id string) string { return filepath.Join(dir, id+".events.jsonl") }

// ExitPath is where a resident run records how it ended.
func ExitPath(dir, id string) string { return filepath.Join(dir, id+".exit") }

// MakeDir creates the registry folder, private to its user.
func MakeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// Register writes the entry e into dir.
func Register(dir string, e Entry) error {
	if !validID(e.ID) {
		return fmt.Errorf("control: invalid session id %q", e.ID)
	}
	if err := MakeDir(dir); err != nil {
		return fmt.Errorf("control: %w", err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, e.ID), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("control: registering %s: %w", e.ID, err)
	}
	return nil
}

// Unregister removes the entry of id, if there is one.
func Unregister(dir, id string) error {
	if !validID(id) {
		return nil
	}
	err := os.Remove(filepath.Join(dir, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Running returns the entries of the runs that are alive, oldest first, and removes those
// of runs that died.
func Running(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	var out []Entry
	for _, de := range des {
		if !validID(de.Name()) || !de.Type().IsRegular() {
			continue
		}
		e, ok := read(dir, de.Name())
		if ok {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Get returns the entry of the live run id.
func Get(dir, id string) (Entry, bool) {
	if !validID(id) {
		return Entry{}, false
	}
	return read(dir, id)
}

// read reads the entry id and checks that its run is alive; a dead run's entry and socket
// are removed. An entry that cannot be decoded is one being replaced, or junk: it is
// skipped, not removed.
func read(dir, id string) (Entry, bool) {
	path := filepath.Join(dir, id)
	data, err := os.ReadFile(path)
	if err != nil {
		return Entry{}, false
	}
	var e Entry
	if json.Unmarshal(data, &e) != nil || e.ID != id {
		return Entry{}, false
	}
	if Alive(e) {
		return e, true
	}
	// Remove the entry only if it is still the one found dead (a new run of the same
	// session may have registered meanwhile).
	if now, err := os.ReadFile(path); err == nil && string(now) == string(data) {
		os.Remove(path)
		if e.Socket != "" {
			os.Remove(e.Socket)
		}
	}
	return Entry{}, false
}

// Alive reports whether the run of e is still going: its process exists and its socket
// takes connections. The socket answers for the process: a reused pid has no listener.
func Alive(e Entry) bool {
	if e.PID <= 0 {
		return false
	}
	if !processExists(e.PID) {
		return false
	}
	c, err := net.DialTimeout("unix", e.Socket, 2*time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Exit is how a resident run ended: its exit status and the reason it printed.
type Exit struct {
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
}

// WriteExit records how the resident run id ended.
func WriteExit(dir, id string, x Exit) error {
	data, err := json.Marshal(x)
	if err != nil {
		return err
	}
	return atomicfile.Write(ExitPath(dir, id), append(data, '\n'), 0o600)
}

// ReadExit returns how the resident run id ended; ok is false while it has not.
func ReadExit(dir, id string) (x Exit, ok bool, err error) {
	data, err := os.ReadFile(ExitPath(dir, id))
	if errors.Is(err, os.ErrNotExist) {
		return x, false, nil
	}
	if err != nil {
		return x, false, err
	}
	if err := json.Unmarshal(data, &x); err != nil {
		return x, false, fmt.Errorf("control: %s: %w", ExitPath(dir, id), err)
	}
	return x, true, nil
}

// Recorded returns the ids of the resident runs whose events files are in dir, running or
// ended, sorted.
func Recorded(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	var ids []string
	for _, de := range des {
		if id, ok := strings.CutSuffix(de.Name(), ".events.jsonl"); ok && validID(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
