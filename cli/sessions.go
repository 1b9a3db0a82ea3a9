package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/stages"
)

// SessionsCmd groups the commands on saved sessions.
type SessionsCmd struct {
	List SessionsListCmd `cmd:"" help:"List saved sessions, newest activity first (those of this directory unless --all)."`
	Show SessionsShowCmd `cmd:"" help:"Print a session's messages as JSON lines, or with --events its event stream."`
	Rm   SessionsRmCmd   `cmd:"" help:"Delete a saved session."`
}

// SessionDirFlag is where the sessions commands look for session files.
type SessionDirFlag struct {
	SessionDir string `placeholder:"DIR" help:"Where sessions are saved (default: $BASE_CONTEXT_HOME/sessions, or ~/.base-context/sessions)."`
}

// check refuses to look for sessions in the stand-in home of a user without one.
func (f SessionDirFlag) check(streams *IO) error {
	if f.SessionDir == "" && !hasHome(streams) {
		return errNoHome
	}
	return nil
}

func (f SessionDirFlag) dir(streams *IO) string {
	return cmp.Or(f.SessionDir, defaultSessionDir(streams))
}

// SessionsListCmd is `sessions list`.
type SessionsListCmd struct {
	SessionDirFlag
	JSON bool `name:"json" help:"One JSON object per session instead of a table."`
	All  bool `help:"Sessions of every directory, not only of this one."`
}

func (c *SessionsListCmd) Run(streams *IO) error {
	if err := c.check(streams); err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	rows, problems, err := control.ListSessions(c.dir(streams), registryDir(streams), cwd, c.All)
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	for _, p := range problems {
		fmt.Fprintf(streams.Err, "warning: %v\n", p)
	}
	if c.JSON {
		out := codec.NewLineWriter(streams.Out)
		for _, r := range rows {
			data, _ := json.Marshal(r)
			if err := out.WriteLine(data); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(streams.Out, 0, 0, 2, ' ', 0)
	header := "ID\tSTATUS\tMESSAGES\tMODEL\tLAST ACTIVITY"
	if c.All {
		header += "\tCWD"
	}
	fmt.Fprintln(tw, header+"\tTITLE")
	for _, r := range rows {
		line := fmt.Sprintf("%s\t%s\t%d\t%s\t%s", r.Prefix, r.Status, r.MessageCount, orDash(r.Model), r.LastActivity)
		if c.All {
			line += "\t" + r.Cwd
		}
		fmt.Fprintln(tw, line+"\t"+orDash(r.Title))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// SessionsShowCmd is `sessions show`.
type SessionsShowCmd struct {
	SessionDirFlag
	ID         string `arg:"" help:"Session id, or a unique prefix of it."`
	Events     bool   `help:"Replay the session as the event stream (header, agent_start … agent_end) instead of printing only its messages."`
	JSONDeltas bool   `name:"json-deltas" help:"With --events: the delta form of streaming updates."`
}

func (c *SessionsShowCmd) Run(streams *IO) error {
	if err := c.check(streams); err != nil {
		return err
	}
	if c.JSONDeltas && !c.Events {
		return Fail(ExitUsage, "--json-deltas requires --events")
	}
	dir := c.dir(streams)
	path, err := control.FindSaved(dir, c.ID)
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	l, err := session.Read(path)
	if err != nil {
		return Fail(ExitFailure, err.Error())
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(streams.Err, "warning: %s: %s\n", path, w)
	}
	out := codec.NewLineWriter(streams.Out)
	if !c.Events {
		// Each message as the file holds it (the stream's message shape), not re-encoded.
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
	if !c.JSONDeltas {
		chain = append(chain, stages.NewExpand())
	}
	st := stages.Chain(chain...)
	write := func(f *stages.Frame) error { return f.WriteLine(out) }
	if err := l.Replay(func(e codec.Event) error { return st.Push(stages.EventFrame(e), write) }); err != nil {
		return err
	}
	return st.Flush(write)
}

// SessionsRmCmd is `sessions rm`.
type SessionsRmCmd struct {
	SessionDirFlag
	ID string `arg:"" help:"Session id, or a unique prefix of it."`
}

func (c *SessionsRmCmd) Run(streams *IO) error {
	if err := c.check(streams); err != nil {
		return err
	}
	dir := c.dir(streams)
	path, err := control.FindSaved(dir, c.ID)
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	locked, err := session.Locked(path)
	if err != nil {
		return Fail(ExitFailure, err.Error())
	}
	if locked {
		return Fail(ExitUsage, fmt.Sprintf("session %s is running: stop it first (base-context stop %s)", id, id))
	}
	if err := os.Remove(path); err != nil {
		return Fail(ExitFailure, err.Error())
	}
	// A detached run's stream and exit record go with it, and the full outputs of its tools.
	reg := registryDir(streams)
	for _, p := range []string{control.EventsPath(reg, id), control.ExitPath(reg, id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(streams.Err, "warning: %v\n", err)
		}
	}
	if id != "" && id[0] != '.' {
		if err := os.RemoveAll(outputsDir(streams, id)); err != nil {
			fmt.Fprintf(streams.Err, "warning: %v\n", err)
		}
	}
	return nil
}
