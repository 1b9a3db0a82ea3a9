package cli

import (
	"cmp"
	"fmt"
	"time"

	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/report"
	"github.com/basecontext/base-context/stages"
)

// SessionsCmd groups the commands on saved sessions.
type SessionsCmd struct {
	List   SessionsListCmd   `cmd:"" help:"List saved sessions, newest activity first (those of this directory unless --all)."`
	Show   SessionsShowCmd   `cmd:"" help:"Print a session's messages as JSON lines, or with --events its event stream."`
	Rm     SessionsRmCmd     `cmd:"" help:"Delete a saved session."`
	Export SessionsExportCmd `cmd:"" help:"Write a self-contained HTML report of a saved session (as 'filter html' does of a stream)."`
	Prune  SessionsPruneCmd  `cmd:"" help:"Delete the sessions older than --older-than (never a running one)."`
}

// SessionDirFlag is where the sessions commands and a run look for session files.
type SessionDirFlag struct {
	SessionDir string `placeholder:"DIR" help:"Where sessions are saved (default: $BASE_CONTEXT_HOME/sessions, or ~/.base-context/sessions)."`
}

// folder is the folder of saved sessions (control.Folder).
func (f SessionDirFlag) folder(streams *IO) control.Folder {
	return control.Folder{Dir: cmp.Or(f.SessionDir, streams.home().Sessions()), Home: streams.home(),
		Chosen: f.SessionDir != "" || control.HasHome(streams.Getenv), Warn: warn(streams)}
}

// warn prints a warning of what a session file holds.
func warn(streams *IO) func(path, w string) {
	return func(path, w string) { fmt.Fprintf(streams.Err, "warning: %s: %s\n", path, w) }
}

// SessionsListCmd is `sessions list`.
type SessionsListCmd struct {
	SessionDirFlag
	JSON  bool   `name:"json" help:"One JSON object per session instead of a table."`
	All   bool   `help:"Sessions of every directory, not only of this one."`
	Limit string `placeholder:"N" help:"The newest N sessions (default 50; 0: every one)."`
}

func (c *SessionsListCmd) Run(streams *IO) error {
	return c.folder(streams).List(streams.Out, streams.Err, c.All, c.JSON, c.Limit)
}

// SessionsShowCmd is `sessions show`.
type SessionsShowCmd struct {
	SessionDirFlag
	ID         string `arg:"" help:"Session id, or a unique prefix of it."`
	Events     bool   `help:"Replay the session as the event stream (header, agent_start … agent_end) instead of printing only its messages."`
	JSONDeltas bool   `name:"json-deltas" help:"With --events: the delta form of streaming updates."`
}

func (c *SessionsShowCmd) Run(streams *IO) error {
	return c.folder(streams).Show(streams.Out, c.ID, control.ShowOptions{Events: c.Events, Deltas: c.JSONDeltas})
}

// SessionsRmCmd is `sessions rm`.
type SessionsRmCmd struct {
	SessionDirFlag
	ID string `arg:"" help:"Session id, or a unique prefix of it."`
}

func (c *SessionsRmCmd) Run(streams *IO) error { return c.folder(streams).Remove(streams.Err, c.ID) }

// SessionsExportCmd is `sessions export`.
type SessionsExportCmd struct {
	SessionDirFlag
	ID     string `arg:"" help:"Session id, or a unique prefix of it."`
	Output string `short:"o" placeholder:"FILE" help:"Write to FILE (replaced atomically) instead of stdout."`
	report.Flags
}

func (c *SessionsExportCmd) Run(streams *IO) error {
	path, err := c.folder(streams).Find(c.ID)
	if err != nil {
		return err
	}
	return c.Flags.Settings(streams.Getenv, streams.Err, stages.VerdictOptions{}).Export(path, c.Output, streams.Out)
}

// SessionsPruneCmd is `sessions prune`.
type SessionsPruneCmd struct {
	SessionDirFlag
	OlderThan string `required:"" placeholder:"AGE" help:"Delete the sessions whose last activity is older than AGE: 30d, 12h, 90m."`
	Keep      int    `bound:"nonnegative" placeholder:"N" help:"Keep the N newest sessions whatever their age."`
	DryRun    bool   `help:"Say what would be deleted, and delete nothing."`
}

func (c *SessionsPruneCmd) Run(streams *IO) error {
	age, err := control.ParseAge(c.OlderThan)
	if err != nil {
		return exitcode.New(exitcode.Usage, "--older-than: "+err.Error())
	}
	return c.folder(streams).Prune(streams.Err, time.Now().Add(-age), c.Keep, c.DryRun)
}
