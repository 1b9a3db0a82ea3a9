package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
)

// ListCmd is `list`: the running sessions.
type ListCmd struct {
	JSON bool `name:"json" help:"One JSON object per run instead of a table."`
}

func (c *ListCmd) Run(streams *IO) error {
	// Resident runs that ended long ago leave their stream and record behind: tidy up.
	control.Prune(registryDir(streams), time.Now().Add(-control.KeepEnded))
	pruneOutputs(streams)
	entries, err := control.Running(registryDir(streams))
	if err != nil {
		return Fail(ExitFailure, err.Error())
	}
	if c.JSON {
		out := codec.NewLineWriter(streams.Out)
		for _, e := range entries {
			data, _ := json.Marshal(e)
			if err := out.WriteLine(data); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(streams.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMODE\tPID\tSTARTED\tCWD")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", e.ID, e.Mode, e.PID, e.Start, e.Cwd)
	}
	return tw.Flush()
}

// findRunning resolves an id or prefix among the running sessions.
func findRunning(streams *IO, query string) (control.Entry, error) {
	entries, err := control.Running(registryDir(streams))
	if err != nil {
		return control.Entry{}, Fail(ExitFailure, err.Error())
	}
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
	return control.Entry{}, notRunning(streams, query, err)
}

// notRunning explains a failed lookup among running sessions; a saved session that is not
// running is named as such.
func notRunning(streams *IO, query string, err error) error {
	var nf *session.NotFoundError
	if !errors.As(err, &nf) {
		return Fail(ExitUsage, err.Error())
	}
	if path, ferr := session.Find(filepath.Join(homeDir(streams), "sessions"), query); ferr == nil {
		return Fail(ExitUsage, fmt.Sprintf("session %s is not running", strings.TrimSuffix(filepath.Base(path), ".jsonl")))
	}
	if len(nf.Closest) == 0 {
		return Fail(ExitUsage, fmt.Sprintf("no running session %q: no session is running", query))
	}
	return Fail(ExitUsage, fmt.Sprintf("no running session %q; the closest running ids are %s", query, joinIDs(nf.Closest)))
}

func joinIDs(ids []string) string {
	var b bytes.Buffer
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id)
	}
	return b.String()
}

// StopCmd is `stop`.
type StopCmd struct {
	ID string `arg:"" help:"Session id, or a unique prefix of it."`
}

func (c *StopCmd) Run(streams *IO) error {
	e, err := findRunning(streams, c.ID)
	if err != nil {
		return err
	}
	if err := control.Stop(e.Socket); err != nil {
		return Fail(ExitFailure, fmt.Sprintf("cannot stop session %s: %v", e.ID, err))
	}
	return nil
}

// SendCmd is `send`.
type SendCmd struct {
	Steer    bool   `xor:"send-kind" help:"Deliver the message at the next turn boundary of the running prompt (the default)."`
	FollowUp bool   `name:"follow-up" xor:"send-kind" help:"Deliver the message when the agent would otherwise stop, as a new prompt."`
	ID       string `arg:"" help:"Session id, or a unique prefix of it."`
	Message  string `arg:"" help:"The message."`
}

func (c *SendCmd) Run(streams *IO) error {
	if c.Message == "" {
		return Fail(ExitUsage, "empty message")
	}
	e, err := findRunning(streams, c.ID)
	if err != nil {
		return err
	}
	kind := control.KindSteer
	if c.FollowUp {
		kind = control.KindFollowUp
	}
	if _, err := control.Call(e.Socket, control.Request{Op: control.OpSend, Kind: kind, Text: c.Message}); err != nil {
		return Fail(ExitFailure, fmt.Sprintf("cannot send to session %s: %v", e.ID, err))
	}
	return nil
}

// AttachCmd is `attach`.
type AttachCmd struct {
	ID      string `arg:"" help:"Session id of a --detach run, or a unique prefix of it."`
	FromNow bool   `name:"from-now" help:"Skip the stream so far: print the header line, then only what comes next."`
}

// attachPoll is how often attach looks for more of the stream once it has caught up, and
// attachAliveEvery how many polls apart it checks that the run is still alive.
const (
	attachPoll       = 50 * time.Millisecond
	attachAliveEvery = 20
)

func (c *AttachCmd) Run(streams *IO) error {
	reg := registryDir(streams)
	ids, err := control.Recorded(reg)
	if err != nil {
		return Fail(ExitFailure, err.Error())
	}
	entries, _ := control.Running(reg)
	for _, e := range entries {
		if e.Mode == control.ModeResident {
			ids = append(ids, e.ID) // registered, its stream not begun yet
		}
	}
	id, err := session.Match(dedupe(ids), c.ID)
	if err != nil {
		for _, e := range entries {
			if c.ID != "" && strings.HasPrefix(e.ID, c.ID) {
				return Fail(ExitUsage, fmt.Sprintf("session %s belongs to the client that started it: only a --detach run can be attached", e.ID))
			}
		}
		var nf *session.NotFoundError
		if errors.As(err, &nf) {
			if path, ferr := session.Find(filepath.Join(homeDir(streams), "sessions"), c.ID); ferr == nil {
				return Fail(ExitUsage, fmt.Sprintf("session %s has no detached run to attach to (see sessions show)", strings.TrimSuffix(filepath.Base(path), ".jsonl")))
			}
			if len(nf.Closest) == 0 {
				return Fail(ExitUsage, fmt.Sprintf("no detached run %q: there are none", c.ID))
			}
		}
		return Fail(ExitUsage, err.Error())
	}
	ctx := streams.signals.context()
	err = (&follower{reg: reg, id: id, out: streams.Out}).run(ctx, c.FromNow)
	if ctx.Err() != nil {
		// Detaching: the run goes on.
		code, _, _ := streams.signals.exit()
		return Fail(code, "")
	}
	return err
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// follower copies a detached run's events file to out as it grows, whole lines only, until
// the run has ended, then returns the run's own exit status.
type follower struct {
	reg, id string
	out     io.Writer
	f       *os.File
	pending []byte // the start of a line not yet complete
	skip    bool   // drop bytes up to the next LF (--from-now started inside a line)
	polls   int
}

func (fl *follower) run(ctx context.Context, fromNow bool) error {
	path := control.EventsPath(fl.reg, fl.id)
	for {
		f, err := os.Open(path)
		if err == nil {
			fl.f = f
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return Fail(ExitFailure, err.Error())
		}
		if err := fl.wait(ctx); err != nil {
			return err
		}
	}
	defer fl.f.Close()
	if fromNow {
		if err := fl.skipHistory(ctx); err != nil {
			return err
		}
	}
	buf := make([]byte, 256<<10)
	exited := false
	var status control.Exit
	for {
		n, err := fl.f.Read(buf)
		if n > 0 {
			if werr := fl.emit(buf[:n]); werr != nil {
				return werr
			}
			continue
		}
		if err != nil && err != io.EOF {
			return Fail(ExitFailure, err.Error())
		}
		if exited {
			// The whole stream is out (a line cut by a crash is left out).
			if status.Code == ExitOK {
				return nil
			}
			return Fail(status.Code, status.Error)
		}
		// Caught up: has the run ended?
		if x, ok, err := control.ReadExit(fl.reg, fl.id); err != nil {
			return Fail(ExitFailure, err.Error())
		} else if ok {
			exited, status = true, x
			continue // read what was written before the record
		}
		if err := fl.wait(ctx); err != nil {
			return err
		}
	}
}

// wait pauses before the next look at the file, and fails when the run has died without
// recording how it ended (its process was killed).
func (fl *follower) wait(ctx context.Context) error {
	fl.polls++
	if fl.polls%attachAliveEvery == 0 {
		if _, alive := control.Get(fl.reg, fl.id); !alive {
			// The record is written before the entry is removed: look once more.
			if _, ok, _ := control.ReadExit(fl.reg, fl.id); !ok {
				return Fail(ExitFailure, fmt.Sprintf("session %s: the run ended without recording its status (was its process killed?)", fl.id))
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
// end of what is written so far.
func (fl *follower) skipHistory(ctx context.Context) error {
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
			return Fail(ExitFailure, err.Error())
		}
		if n == 0 {
			if x, ok, _ := control.ReadExit(fl.reg, fl.id); ok {
				if x.Code == ExitOK {
					return nil
				}
				return Fail(x.Code, x.Error)
			}
			if err := fl.wait(ctx); err != nil {
				return err
			}
		}
	}
	if _, err := fl.out.Write(head); err != nil {
		return err
	}
	end, err := fl.f.Seek(0, io.SeekEnd)
	if err != nil {
		return Fail(ExitFailure, err.Error())
	}
	if end > int64(len(head)) {
		var last [1]byte
		if _, err := fl.f.ReadAt(last[:], end-1); err == nil && last[0] != '\n' {
			fl.skip = true
		}
	}
	return nil
}
