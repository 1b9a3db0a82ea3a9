package cli

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// VerdictCmd is `filter verdict`.
type VerdictCmd struct {
	FilterIO
	Gated  bool   `help:"The run was started with --gate: unless its gates ran after the agent's last message and passed, the verdict is a gate failure (exit 4). Gate runs in the stream imply it."`
	Stderr string `placeholder:"FILE" help:"The run's stderr (as kept with 2>FILE), read once the stream has ended: its last 'error:' line says what the stream cannot (a limit: exit 3; SIGINT, SIGTERM: 130, 143)."`
}

// Help is the long help of `filter verdict --help`.
func (c *VerdictCmd) Help() string {
	return `Decides how the recorded run ended, by the completion rules of the spec, instead of trusting
agent_end; exits with the status the run should have had and prints one JSON line. Both the
full and the delta form give the same verdict.

  0    completed: the terminal assistant message ended stop or length, gates (if any) passed
  1    failed: a run ended in error or aborted and no retry recovered it, a compaction failed,
       or the stream was cut mid-run (truncated: no agent_end, a retry or tool never finished)
  3    stopped before it finished: the last turn ended in tool calls and no turn followed, or
       prompts were still queued (a limit, or an interruption); or --stderr names a limit
  4    a gate failed in the last gate run, or no gate ran after the agent's last message
  130  interrupted, 143 terminated (only from --stderr)

The summary line has these members (those marked ? are left out when empty; usage and cost
are summed over every assistant message):

  {"status","reason"?,"stopReason"?,"errorMessage"?,"sessionId"?,"truncated","turns",
   "toolCalls":{NAME:{"calls","errors"}},"retries","compactions","usage"}

Examples:

  base-context filter verdict run.jsonl
  base-context --mode json "Fix the tests" 2>run.err | tee run.jsonl | base-context filter verdict --stderr run.err
  base-context filter verdict run.jsonl | jq -r '.status'`
}

// verdictExit maps a verdict status to the exit status of the run.
var verdictExit = map[string]int{
	stages.VerdictCompleted:   ExitOK,
	stages.VerdictFailed:      ExitFailure,
	stages.VerdictLimit:       ExitLimit,
	stages.VerdictGate:        ExitGate,
	stages.VerdictInterrupted: ExitInterrupted,
	stages.VerdictTerminated:  ExitTerminated,
}

// Run runs the filter.
func (c *VerdictCmd) Run(streams *IO) error {
	var stderrErr error
	v := stages.NewVerdict(stages.VerdictOptions{Gated: c.Gated, RunError: func() string {
		reason, err := lastErrorLine(c.Stderr)
		stderrErr = err
		return reason
	}})
	err := c.run(streams, v)
	if stderrErr != nil {
		return Fail(ExitUsage, stderrErr.Error())
	}
	var exit *ExitError
	if err != nil && !(errors.As(err, &exit) && exit.Code == ExitFailure) {
		return err // not the report of invalid lines: the stream was not read
	}
	s := v.Summary()
	if code := verdictExit[s.Status]; code != ExitOK {
		return Fail(code, s.Status+": "+s.Reason)
	}
	return err // nil, or the report of lines that were not JSON objects (exit 1)
}

// lastErrorLine returns the reason of the last "error: <reason>" line of the file at path,
// "" for no path or no such line.
func lastErrorLine(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var reason string
	lr := codec.NewLineReader(f)
	for {
		line, err := lr.ReadLine()
		if err == io.EOF {
			return reason, nil
		}
		if err != nil {
			return "", err
		}
		if r, ok := bytes.CutPrefix(line, []byte("error: ")); ok {
			reason = string(bytes.TrimSpace(r))
		}
	}
}
