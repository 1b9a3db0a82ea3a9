package control

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// WriteListings writes what ListSessions listed: one JSON object per session with asJSON,
// else a table (with each session's directory when it lists those of every directory).
func WriteListings(w io.Writer, rows []Listing, all, asJSON bool) error {
	if asJSON {
		return writeJSONLines(w, rows)
	}
	bw := bufio.NewWriter(w) // the table writer writes cell by cell
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	header := "ID\tSTATUS\tMESSAGES\tMODEL\tLAST ACTIVITY"
	if all {
		header += "\tCWD"
	}
	fmt.Fprintln(tw, header+"\tTITLE")
	for _, r := range rows {
		line := fmt.Sprintf("%s\t%s\t%d\t%s\t%s", r.Prefix, r.Status, r.MessageCount, orDash(r.Model), r.LastActivity)
		if all {
			line += "\t" + r.Cwd
		}
		fmt.Fprintln(tw, line+"\t"+orDash(r.Title))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteRunning writes the runs Running found: one JSON object per run with asJSON, else a
// table.
func WriteRunning(w io.Writer, entries []Entry, asJSON bool) error {
	if asJSON {
		return writeJSONLines(w, entries)
	}
	bw := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMODE\tPID\tSTARTED\tCWD")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", e.ID, e.Mode, e.PID, e.Start, e.Cwd)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

func writeJSONLines[T any](w io.Writer, rows []T) error {
	out := codec.NewLineWriter(w)
	for _, r := range rows {
		data, _ := json.Marshal(r)
		if err := out.WriteLine(data); err != nil {
			return err
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ShowOptions say how ShowSession prints a session.
type ShowOptions struct {
	Events bool // the event stream (header, agent_start … agent_end) instead of the messages
	Deltas bool // with Events: the delta form of streaming updates
	// Warn receives what reading the session found and cut off, before anything is written.
	Warn func(path, warning string)
}

// ShowSession writes the session file at path to w as JSON lines: each message as the file
// holds it (the stream's message shape, not re-encoded), or with o.Events its replay as the
// event stream.
func ShowSession(w io.Writer, path string, o ShowOptions) error {
	l, err := session.Read(path)
	if err != nil {
		return err
	}
	for _, warning := range l.Warnings {
		o.Warn(path, warning)
	}
	out := codec.NewLineWriter(w)
	if !o.Events {
		for _, e := range l.Chain {
			if e.Type != session.TypeMessage {
				continue
			}
			if err := out.WriteLine(codec.Find(e.Raw, "message").Raw(e.Raw)); err != nil {
				return err
			}
		}
		return nil
	}
	// The replay is in the delta form; the expand stage gives it its snapshots.
	var chain []stages.Stage
	if !o.Deltas {
		chain = append(chain, stages.NewExpand())
	}
	st := stages.Chain(chain...)
	write := func(f *stages.Frame) error { return f.WriteLine(out) }
	if err := l.Replay(func(e codec.Event) error { return st.Push(stages.EventFrame(e), write) }); err != nil {
		return err
	}
	return st.Flush(write)
}

// RunningError is the error of removing a session a run is writing.
type RunningError struct{ ID string }

func (e *RunningError) Error() string {
	return fmt.Sprintf("session %s is running: stop it first (base-context stop %s)", e.ID, e.ID)
}

// RemoveSession deletes the session file at path, unless a run is writing it, with what
// goes with it: a detached run's stream and exit record in the registry folder, and the
// full outputs of its tools, outputs(id). What cannot be removed of those is a warning.
func RemoveSession(path, registry string, outputs func(id string) string) (warnings []error, err error) {
	id := session.IDOf(path)
	locked, err := session.Locked(path)
	if err != nil {
		return nil, err
	}
	if locked {
		return nil, &RunningError{ID: id}
	}
	if err := os.Remove(path); err != nil {
		return nil, err
	}
	for _, p := range []string{EventsPath(registry, id), ExitPath(registry, id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			warnings = append(warnings, err)
		}
	}
	if id != "" && id[0] != '.' {
		if err := os.RemoveAll(outputs(id)); err != nil {
			warnings = append(warnings, err)
		}
	}
	return warnings, nil
}

// Events replays the session file at path as its event stream (ShowSession with Events),
// read from the returned reader; a failure to read the session is the reader's error.
func Events(path string, warn func(path, warning string)) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(ShowSession(pw, path, ShowOptions{Events: true, Warn: warn})) }()
	return pr
}
