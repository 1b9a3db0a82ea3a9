package control

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/basecontext/base-context/agent/session"
)

// attachPoll is how often Follow looks for more of the stream once it has caught up, and
// attachAliveEvery how many polls apart it checks that the run is still alive.
const (
	attachPoll       = 50 * time.Millisecond
	attachAliveEvery = 20
)

// MatchRunning resolves an id or prefix among the running entries; a failed lookup says
// whether the session is saved but not running (sessionsDir holds the saved ones).
func MatchRunning(entries []Entry, sessionsDir, query string) (Entry, error) {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	id, err := session.Match(ids, query)
	if err == nil {
		for _, e := range entries {
			if e.ID == id {
				return e, nil
			}
		}
	}
	var nf *session.NotFoundError
	if !errors.As(err, &nf) {
		return Entry{}, err
	}
	if path, ferr := session.Find(sessionsDir, query); ferr == nil {
		return Entry{}, fmt.Errorf("session %s is not running", session.IDOf(path))
	}
	if len(nf.Closest) == 0 {
		return Entry{}, fmt.Errorf("no running session %q: no session is running", query)
	}
	return Entry{}, fmt.Errorf("no running session %q; the closest running ids are %s", query, strings.Join(nf.Closest, ", "))
}

// Attachable are the ids of the detached runs attach can follow in the registry dir:
// those whose stream is recorded, running or ended, and those registered whose stream has
// not begun; running are the live entries. The error is the registry's.
func Attachable(dir string) (ids []string, running []Entry, err error) {
	ids, err = Recorded(dir)
	if err != nil {
		return nil, nil, err
	}
	// A run that cannot be listed as running is still attachable by its recorded stream;
	// the ids above are what attach needs, the live entries only add the unstarted ones.
	running, _ = Running(dir)
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	for _, e := range running {
		if e.Mode == ModeResident && !seen[e.ID] {
			seen[e.ID] = true
			ids = append(ids, e.ID) // registered, its stream not begun yet
		}
	}
	return ids, running, nil
}

// MatchAttachable resolves an id or prefix among the ids of Attachable; a failed lookup
// says why the session cannot be attached (a client's run, a saved session without a
// detached run).
func MatchAttachable(ids []string, running []Entry, sessionsDir, query string) (string, error) {
	id, err := session.Match(ids, query)
	if err == nil {
		return id, nil
	}
	for _, e := range running {
		if query != "" && strings.HasPrefix(e.ID, query) {
			return "", fmt.Errorf("session %s belongs to the client that started it: only a --detach run can be attached", e.ID)
		}
	}
	var nf *session.NotFoundError
	if errors.As(err, &nf) {
		if path, ferr := session.Find(sessionsDir, query); ferr == nil {
			return "", fmt.Errorf("session %s has no detached run to attach to (see sessions show)", session.IDOf(path))
		}
		if len(nf.Closest) == 0 {
			return "", fmt.Errorf("no detached run %q: there are none", query)
		}
	}
	return "", err
}

// Follow copies the stream of the detached run id in the registry dir to out as it grows,
// whole lines only, until the run has ended, and returns how it ended. fromNow skips the
// stream so far but its header line. It returns ctx's error when ctx ends first (the run
// goes on).
func Follow(ctx context.Context, dir, id string, out io.Writer, fromNow bool) (Exit, error) {
	fl := &follower{reg: dir, id: id, out: out}
	return fl.run(ctx, fromNow)
}

// follower copies a detached run's events file to out as it grows.
type follower struct {
	reg, id string
	out     io.Writer
	f       *os.File
	pending []byte // the start of a line not yet complete
	skip    bool   // drop bytes up to the next LF (--from-now started inside a line)
	polls   int
}

func (fl *follower) run(ctx context.Context, fromNow bool) (Exit, error) {
	path := EventsPath(fl.reg, fl.id)
	for {
		f, err := os.Open(path)
		if err == nil {
			fl.f = f
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return Exit{}, err
		}
		if err := fl.wait(ctx); err != nil {
			return Exit{}, err
		}
	}
	defer fl.f.Close()
	if fromNow {
		if x, ended, err := fl.skipHistory(ctx); err != nil || ended {
			return x, err
		}
	}
	buf := make([]byte, 256<<10)
	exited := false
	var status Exit
	for {
		n, err := fl.f.Read(buf)
		if n > 0 {
			if werr := fl.emit(buf[:n]); werr != nil {
				return Exit{}, werr
			}
			continue
		}
		if err != nil && err != io.EOF {
			return Exit{}, err
		}
		if exited {
			return status, nil // the whole stream is out (a line cut by a crash is left out)
		}
		// Caught up: has the run ended?
		if x, ok, err := ReadExit(fl.reg, fl.id); err != nil {
			return Exit{}, err
		} else if ok {
			exited, status = true, x
			continue // read what was written before the record
		}
		if err := fl.wait(ctx); err != nil {
			return Exit{}, err
		}
	}
}

// wait pauses before the next look at the file, and fails when the run has died without
// recording how it ended (its process was killed).
func (fl *follower) wait(ctx context.Context) error {
	fl.polls++
	if fl.polls%attachAliveEvery == 0 {
		if _, alive := Get(fl.reg, fl.id); !alive {
			// The record is written before the entry is removed: look once more.
			if _, ok, _ := ReadExit(fl.reg, fl.id); !ok {
				return fmt.Errorf("session %s: the run ended without recording its status (was its process killed?)", fl.id)
			}
			fl.polls = 0
			return nil
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(attachPoll):
		return nil
	}
}

// emit writes the complete lines of pending+p and keeps the rest.
func (fl *follower) emit(p []byte) error {
	if fl.skip {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return nil
		}
		fl.skip = false
		p = p[i+1:]
	}
	end := bytes.LastIndexByte(p, '\n')
	if end < 0 {
		fl.pending = append(fl.pending, p...)
		return nil
	}
	if len(fl.pending) > 0 {
		if _, err := fl.out.Write(fl.pending); err != nil {
			return err
		}
		fl.pending = fl.pending[:0]
	}
	if _, err := fl.out.Write(p[:end+1]); err != nil {
		return err
	}
	fl.pending = append(fl.pending, p[end+1:]...)
	return nil
}

// skipHistory prints the stream's first line (the header, once written) and moves to the
// end of what is written so far. ended: the run ended before writing its header, x is how.
func (fl *follower) skipHistory(ctx context.Context) (x Exit, ended bool, err error) {
	var head []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := fl.f.Read(buf)
		head = append(head, buf[:n]...)
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
			break
		}
		if err != nil && err != io.EOF {
			return Exit{}, false, err
		}
		if n == 0 {
			if x, ok, _ := ReadExit(fl.reg, fl.id); ok {
				return x, true, nil
			}
			if err := fl.wait(ctx); err != nil {
				return Exit{}, false, err
			}
		}
	}
	if _, err := fl.out.Write(head); err != nil {
		return Exit{}, false, err
	}
	end, err := fl.f.Seek(0, io.SeekEnd)
	if err != nil {
		return Exit{}, false, err
	}
	if end > int64(len(head)) {
		var last [1]byte
		if _, err := fl.f.ReadAt(last[:], end-1); err == nil && last[0] != '\n' {
			fl.skip = true
		}
	}
	return Exit{}, false, nil
}
