package cli

import (
	"fmt"
	"time"

	"github.com/basecontext/base-context/control"
)

// ListCmd is `list`: the running sessions.
type ListCmd struct {
	JSON bool `name:"json" help:"One JSON object per run instead of a table."`
}

func (c *ListCmd) Run(streams *IO) error {
	// Resident runs that ended long ago leave their stream and record behind: tidy up.
	control.Prune(streams.home().Registry(), time.Now().Add(-control.KeepEnded))
	streams.home().PruneOutputs()
	entries, err := control.Running(streams.home().Registry())
	if err != nil {
		return Fail(ExitFailure, err.Error())
	}
	return control.WriteRunning(streams.Out, entries, c.JSON)
}

// findRunning resolves an id or prefix among the running sessions.
func findRunning(streams *IO, query string) (control.Entry, error) {
	entries, err := control.Running(streams.home().Registry())
	if err != nil {
		return control.Entry{}, Wrap(ExitFailure, err)
	}
	e, err := control.MatchRunning(entries, streams.home().Sessions(), query)
	return e, Wrap(ExitUsage, err)
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

func (c *AttachCmd) Run(streams *IO) error {
	reg := streams.home().Registry()
	ids, running, err := control.Attachable(reg)
	if err != nil {
		return Wrap(ExitFailure, err)
	}
	id, err := control.MatchAttachable(ids, running, streams.home().Sessions(), c.ID)
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	ctx := streams.signals.Context()
	x, err := control.Follow(ctx, reg, id, streams.Out, c.FromNow)
	if ctx.Err() != nil {
		code, _, _ := signalExit(streams.signals) // detaching: the run goes on
		return Fail(code, "")
	}
	if err != nil || x.Code == ExitOK {
		return err
	}
	return Fail(x.Code, x.Error)
}

// unsupported says why a command (or --detach) cannot run on this system; nil: it can.
func unsupported(command string) error { return Wrap(ExitUsage, control.Unsupported(command)) }
