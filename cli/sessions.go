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

// sessionListing is a session as `sessions list --json` prints it.
type sessionListing struct {
	ID            string `json:"id"`
	Cwd           string `json:"cwd"`
	Created       string `json:"created"`
	LastActivity  string `json:"lastActivity"`
	Model         string `json:"model,omitempty"`
	MessageCount  int    `json:"messageCount"`
	Status        string `json:"status"`
	ParentSession string `json:"parentSession,omitempty"`
	Path          string `json:"path"`
	Prefix        string `json:"prefix"`
	Title         string `json:"title"`
}

func (c *SessionsListCmd) Run(streams *IO) error {
	if err := c.check(streams); err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	dir := c.dir(streams)
	infos, problems, err := session.List(dir)
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	for _, p := range problems {
		fmt.Fprintf(streams.Err, "warning: %v\n", p)
	}
	allIDs, err := session.IDs(dir)
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	prefixes := uniquePrefixes(allIDs, minPrefix)
	running := map[string]bool{}
	entries, _ := control.Running(registryDir(streams))
	for _, e := range entries {
		running[e.ID] = true
	}
	var rows []sessionListing
	for _, in := range infos {
		if !c.All && !control.SameDir(in.Cwd, cwd) {
			continue
		}
		status := in.Status
		if running[in.ID] {
			status = session.StatusRunning
		}
		rows = append(rows, sessionListing{ID: in.ID, Cwd: in.Cwd, Created: in.Created, LastActivity: in.LastActivity,
			Model: in.Model, MessageCount: in.Messages, Status: status, ParentSession: in.ParentSession, Path: in.Path,
			Prefix: prefixes[in.ID], Title: title(in.FirstPrompt)})
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

// minPrefix is the shortest id prefix sessions list shows: ids are UUIDv7, whose first
// characters are a timestamp that sessions of the same minute share.
const minPrefix = 8

// uniquePrefixes maps each id to its shortest prefix of at least least characters that no
// other id starts with (the whole id when it is a prefix of another). ids must be sorted:
// an id shares its longest prefix with one of its neighbours.
func uniquePrefixes(ids []string, least int) map[string]string {
	out := make(map[string]string, len(ids))
	for i, id := range ids {
		n := least
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(ids) {
				n = max(n, commonPrefix(id, ids[j])+1)
			}
		}
		out[id] = id[:min(n, len(id))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// maxTitle is how many characters of the first prompt sessions list shows.
const maxTitle = 50

// title is a prompt on one line, cut to maxTitle characters ("…" marks a cut).
func title(prompt string) string {
	t := []rune(strings.Join(strings.Fields(prompt), " "))
	if len(t) > maxTitle {
		return string(t[:maxTitle-1]) + "…"
	}
	return string(t)
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
