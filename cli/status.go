package cli

import (
	"time"

	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/terminal"
)

// StatusFlags control the status line of text mode on stderr.
type StatusFlags struct {
	Verbose bool `group:"output" xor:"status-line" help:"Show progress on stderr (model calls, tools, retries, compaction) even when stderr is not a terminal, and in JSON mode; one line per change when stderr is not a terminal."`
	Quiet   bool `group:"output" xor:"status-line" help:"No status line on stderr, even when it is a terminal."`
}

// start makes the status line the one writer of the run's stderr, redacting with redact,
// and returns it with the streams the run writes to: their Err goes through it, and so does
// Out when stdout is the same terminal. The line shows in text mode when stderr is a
// terminal, in any mode with --verbose; on a terminal it is one line rewritten in place,
// elsewhere one line per change.
func (f StatusFlags) start(streams *IO, mode string, idle time.Duration, redact func(string) string) (*terminal.Status, *IO) {
	s := terminal.New(streams.Err, terminal.Options{
		Show:        !f.Quiet && (f.Verbose || mode == "text" && streams.StderrIsTerminal),
		Live:        streams.StderrIsTerminal,
		Width:       streams.TerminalWidth,
		Redact:      redact,
		Retries:     !f.Quiet,
		IdleTimeout: idle,
	})
	out := *streams
	out.Err = s.Stderr()
	if streams.StdoutIsTerminal && streams.StderrIsTerminal {
		out.Out = s.Stdout(streams.Out)
	}
	return s, &out
}

// answerStream is text mode's answer on a terminal, written as it arrives (redacted as the
// final answer would be); nil elsewhere, and with -p or --output-schema, which print the
// final answer only.
func (c *RunCmd) answerStream(streams *IO, p *runner.Plan) *terminal.Answer {
	if c.Mode != "text" || !streams.StdoutIsTerminal || c.Print || p.Schema != nil {
		return nil
	}
	return terminal.NewAnswer(streams.Out, p.Redaction.StreamRedactor())
}
