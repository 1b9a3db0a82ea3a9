package cli

import (
	"fmt"
	"io"

	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/internal/signals"
)

// SessionFlags choose the session a run continues and the run's lifetime.
type SessionFlags struct {
	Resume   string `placeholder:"ID" xor:"which-session" help:"Continue the saved session ID (or a unique prefix of it): its history is the context, the run appends to its file, and the stream's header is the session's own."`
	Continue bool   `xor:"which-session" help:"Continue the newest session of this directory."`
	Fork     string `placeholder:"ID" xor:"which-session" help:"Start a new session from a copy of session ID's conversation; its header names ID as parentSession."`
	Export   string `placeholder:"SESSION_FILE" help:"Write an HTML report of the session file (see 'filter html') to the file the first argument names (default: SESSION_FILE with .html for .jsonl), and exit."`
	Detach   bool   `help:"Run in the background, outliving the terminal: print only the session header and exit 0; the stream goes to $BASE_CONTEXT_HOME/run/<id>.events.jsonl (see attach)."`
}

// chooseSession resolves --resume, --continue and --fork. id, when set, is the session id
// the foreground process of a --detach run chose.
func (c *RunCmd) chooseSession(streams *IO, cwd, id string) (control.Choice, error) {
	if c.NoSession && (c.Resume != "" || c.Continue || c.Fork != "") {
		return control.Choice{}, exitcode.New(exitcode.Usage, "--resume, --continue and --fork work on saved sessions: they exclude --no-session")
	}
	choice, err := control.Choose(c.folder(streams).Dir, cwd, control.Which{Resume: c.Resume, Continue: c.Continue, Fork: c.Fork}, id)
	return choice, exitcode.Wrap(exitcode.Usage, err)
}

// openSession opens the plan's session and registers the run. The caller must Close it.
func (c *RunCmd) openSession(streams *IO, p *runner.Plan) (*control.Registered, error) {
	signals.CatchFileSizeLimit()
	return c.folder(streams).OpenRun(p.Source, control.OpenOptions{Cwd: p.Cwd, Memory: c.NoSession,
		Rewrite: p.Redaction.SessionLines(), Warn: warn(streams)}, p.Resident,
		func(err error) { fmt.Fprintf(streams.Err, "warning: %v\n", err) })
}

// detach is `--detach`: the foreground process starts the run in the background, which is
// this same command run again with control.ResidentEnv set (control/resident.go).
func (c *RunCmd) detach(streams *IO, set settled) error {
	if id := streams.Getenv(control.ResidentEnv); id != "" {
		return c.detachedRun(streams, set, id)
	}
	return c.startDetached(streams)
}

// startDetached is `--detach` in the foreground: it prints the header the background run
// announces once it is registered, and exits 0; a run that fails to start exits with the
// run's status instead, having said why on the stderr relayed.
func (c *RunCmd) startDetached(streams *IO) error {
	workDir, err := c.workDir()
	if err != nil {
		return err
	}
	choice, err := c.chooseSession(streams, workDir, "")
	if err != nil {
		return err
	}
	var stdin io.Reader
	if !streams.StdinIsTerminal && streams.In != nil {
		stdin = streams.In // the run reads its prompt input at startup, as in the foreground
	}
	header, err := control.StartResident(choice.ID, stdin, streams.Err)
	if err != nil {
		return err
	}
	_, err = streams.Out.Write(header)
	return err
}

// detachedRun runs the agent as the background process of a --detach run: its stream goes
// to the events file, and how it ended to the run's exit record, for attach.
func (c *RunCmd) detachedRun(streams *IO, set settled, id string) error {
	r, err := control.AdoptResident(id)
	if err != nil {
		return err
	}
	c.Mode = "json" // the events file holds the JSON stream, whatever the foreground printed
	out := *streams
	out.Out = r
	return r.Finish(c.run(streams.signals.Context(), &out, set, r))
}
