package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
)

// SessionFlags choose the session a run continues and the run's lifetime.
type SessionFlags struct {
	Resume   string `placeholder:"ID" xor:"which-session" help:"Continue the saved session ID (or a unique prefix of it): its history is the context, the run appends to its file, and the stream's header is the session's own."`
	Continue bool   `xor:"which-session" help:"Continue the newest session of this directory."`
	Fork     string `placeholder:"ID" xor:"which-session" help:"Start a new session from a copy of session ID's conversation; its header names ID as parentSession."`
	Detach   bool   `help:"Run in the background, outliving the terminal: print only the session header and exit 0; the stream goes to $BASE_CONTEXT_HOME/run/<id>.events.jsonl (see attach)."`
}

// registryDir is the folder of the run registry: <home>/run.
func registryDir(streams *IO) string { return filepath.Join(homeDir(streams), "run") }

// chooseSession resolves --resume, --continue and --fork. id, when set, is the session id
// the foreground process of a --detach run chose.
func (c *RunCmd) chooseSession(streams *IO, cwd, id string) (control.Choice, error) {
	if c.NoSession && (c.Resume != "" || c.Continue || c.Fork != "") {
		return control.Choice{}, Fail(ExitUsage, "--resume, --continue and --fork work on saved sessions: they exclude --no-session")
	}
	choice, err := control.Choose(c.sessionDir(streams), cwd, control.Which{Resume: c.Resume, Continue: c.Continue, Fork: c.Fork}, id)
	return choice, Wrap(ExitUsage, err)
}

// runSession is the session a run writes and the run's place in the registry, through
// which `stop` and `send` reach it.
type runSession struct {
	*control.Session
	*control.Run
}

// Close closes the session file, then (for a run owned by its client) removes the run from
// the registry, which tells a waiting `stop` that the run has ended.
func (s *runSession) Close() error {
	err := s.Store.Close()
	s.Run.Close()
	return err
}

// openSession opens the plan's session and registers the run. The caller must Close it.
func (c *RunCmd) openSession(streams *IO, p *runPlan) (*runSession, error) {
	catchFileSizeLimit()
	s, err := p.source.Open(control.OpenOptions{Dir: c.sessionDir(streams), Cwd: p.cwd, Memory: c.NoSession,
		Rewrite: p.redaction.sessionLines(), Warn: func(path, w string) { fmt.Fprintf(streams.Err, "warning: %s: %s\n", path, w) }})
	if err != nil {
		return nil, c.sessionFileError(streams, err)
	}
	run, err := control.Start(registryDir(streams), s.Header.ID, p.cwd, s.File, p.resident)
	if err != nil {
		if p.resident != nil {
			// A background run nobody can find, attach to or stop must not start.
			s.Store.Close()
			return nil, Fail(ExitUsage, "cannot register the run: "+err.Error())
		}
		fmt.Fprintf(streams.Err, "warning: cannot register the run, so list, stop, send and attach will not find it: %v\n", err)
	}
	if p.resident != nil {
		p.resident.Announce(s.Header)
	}
	return &runSession{Session: s, Run: run}, nil
}

// opening is the messages that open the run's first turn: what the session's last run left
// undelivered, in the order it was sent, then the prompt. A session command (/compact) runs
// alone: the undelivered messages wait for the next resume.
func opening(undelivered []session.Undelivered, prompt []codec.Content) []*codec.UserMessage {
	now := time.Now().UnixMilli()
	user := &codec.UserMessage{Blocks: prompt, Timestamp: now}
	if agent.IsSessionCommand(user) {
		return []*codec.UserMessage{user}
	}
	msgs := make([]*codec.UserMessage, 0, len(undelivered)+1)
	for _, u := range undelivered {
		msgs = append(msgs, &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: u.Text}}, Timestamp: now})
	}
	return append(msgs, user)
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
	cwd, err := os.Getwd()
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
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
	header, err := control.StartResident(choice.ID, cwd, stdin, streams.Err)
	var notStarted *control.NotStartedError
	switch {
	case errors.As(err, &notStarted) && notStarted.Status > 0:
		return Fail(notStarted.Status, "")
	case errors.As(err, &notStarted):
		return Wrap(ExitFailure, err)
	case err != nil:
		return Wrap(ExitUsage, err)
	}
	_, err = streams.Out.Write(header)
	return err
}

// detachedRun runs the agent as the background process of a --detach run: its stream goes
// to the events file, and how it ended to the run's exit record, for attach.
func (c *RunCmd) detachedRun(streams *IO, set settled, id string) error {
	r, err := control.AdoptResident(id)
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	c.Mode = "json" // the events file holds the JSON stream, whatever the foreground printed
	out := *streams
	out.Out = r
	err = c.run(streams.signals.context(), &out, set, r)
	code, msg := exitCode(err)
	if werr := r.End(code, msg); werr != nil && err == nil {
		err = werr
	}
	return err
}
