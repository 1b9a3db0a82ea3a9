package cli

import (
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/exitcode"
)

// ListCmd is `list`: the running sessions.
type ListCmd struct {
	JSON bool `name:"json" help:"One JSON object per run instead of a table."`
}

func (c *ListCmd) Run(streams *IO) error { return streams.home().ListRunning(streams.Out, c.JSON) }

// StopCmd is `stop`.
type StopCmd struct {
	ID string `arg:"" help:"Session id, or a unique prefix of it."`
}

func (c *StopCmd) Run(streams *IO) error { return streams.home().StopRunning(c.ID) }

// SendCmd is `send`.
type SendCmd struct {
	Steer    bool   `xor:"send-kind" help:"Deliver the message at the next turn boundary of the running prompt (the default)."`
	FollowUp bool   `name:"follow-up" xor:"send-kind" help:"Deliver the message when the agent would otherwise stop, as a new prompt."`
	ID       string `arg:"" help:"Session id, or a unique prefix of it."`
	Message  string `arg:"" help:"The message."`
}

func (c *SendCmd) Run(streams *IO) error {
	kind := control.KindSteer
	if c.FollowUp {
		kind = control.KindFollowUp
	}
	return streams.home().SendRunning(c.ID, kind, c.Message)
}

// AttachCmd is `attach`.
type AttachCmd struct {
	ID      string `arg:"" help:"Session id of a --detach run, or a unique prefix of it."`
	FromNow bool   `name:"from-now" help:"Skip the stream so far: print the header line, then only what comes next."`
}

func (c *AttachCmd) Run(streams *IO) error {
	return streams.home().Attach(streams.signals.Context(), c.ID, streams.Out, c.FromNow, func() int {
		code, _, _ := exitcode.Signal(streams.signals.Received()) // detaching: the run goes on
		return code
	})
}

// unsupported says why a command (or --detach) cannot run on this system; nil: it can.
func unsupported(command string) error {
	return exitcode.Wrap(exitcode.Usage, control.Unsupported(command))
}
