package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"

	"github.com/basecontext/base-context/control"
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

// find resolves an id or prefix among the saved sessions, refusing to look for them in the
// stand-in home of a user without one.
func (f SessionDirFlag) find(streams *IO, query string) (string, error) {
	if err := f.check(streams); err != nil {
		return "", err
	}
	path, err := control.FindSaved(f.dir(streams), query)
	return path, Wrap(ExitUsage, err)
}

func (f SessionDirFlag) check(streams *IO) error {
	if f.SessionDir == "" && !control.HasHome(streams.Getenv) {
		return errNoHome
	}
	return nil
}

func (f SessionDirFlag) dir(streams *IO) string {
	return cmp.Or(f.SessionDir, streams.home().Sessions())
}

// warn prints a warning of what a session file holds.
func warn(streams *IO) func(path, w string) {
	return func(path, w string) { fmt.Fprintf(streams.Err, "warning: %s: %s\n", path, w) }
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
	rows, problems, err := control.ListSessions(c.dir(streams), streams.home().Registry(), cwd, c.All)
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	for _, p := range problems {
		fmt.Fprintf(streams.Err, "warning: %v\n", p)
	}
	return control.WriteListings(streams.Out, rows, c.All, c.JSON)
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
	path, err := c.find(streams, c.ID)
	if err != nil {
		return err
	}
	return control.ShowSession(streams.Out, path, control.ShowOptions{Events: c.Events, Deltas: c.JSONDeltas, Warn: warn(streams)})
}

// SessionsRmCmd is `sessions rm`.
type SessionsRmCmd struct {
	SessionDirFlag
	ID string `arg:"" help:"Session id, or a unique prefix of it."`
}

func (c *SessionsRmCmd) Run(streams *IO) error {
	path, err := c.find(streams, c.ID)
	if err != nil {
		return err
	}
	warnings, err := control.RemoveSession(path, streams.home().Registry(), streams.home().Outputs)
	for _, w := range warnings {
		fmt.Fprintf(streams.Err, "warning: %v\n", w)
	}
	var running *control.RunningError
	if errors.As(err, &running) {
		return Wrap(ExitUsage, err)
	}
	return Wrap(ExitFailure, err)
}
