package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

// GateSettings are the commands that decide when an autonomous run is done. Each is a
// shell command run like the bash tool runs one (so it is killed with its whole process
// group on timeout or abort), in Dir.
type GateSettings struct {
	Commands []string
	Retries  int           // prompts after failing gates before the run gives up
	Timeout  time.Duration // per gate run; 0 is none
	Dir      string        // the session's directory
	// Tools are the options of the gates' bash (its Cwd is Dir): where full outputs go,
	// their redaction.
	Tools tools.Options
}

// GateReport is what the gates of a run did.
type GateReport struct {
	Ran     bool   // the gates ran at least once
	Passed  bool   // the last time they ran, every gate exited 0
	Command string // the gate that failed last time
	Status  string // how it failed, e.g. "Command exited with code 1"
	Retries int    // failure prompts sent to the agent
}

// Gate runs appear in the stream as tool executions of this name.
const gateToolName = "gate"

// gateTail bounds the output of a failed gate quoted back to the agent.
const (
	gateTailLines = 40
	gateTailBytes = 4000
)

// gateFailure is a gate that did not pass.
type gateFailure struct {
	command, status, output string
}

// prompt is the message that sends the failure back to the agent.
func (f *gateFailure) prompt() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The gate `%s` failed: %s.", f.command, strings.TrimSuffix(f.status, "."))
	if f.output != "" {
		fmt.Fprintf(&b, " The end of its output:\n\n```\n%s\n```", f.output)
	} else {
		b.WriteString(" It printed nothing.")
	}
	b.WriteString("\n\nThe task is not done until every gate passes. Find the cause and fix it; the gates run again when you stop.")
	return b.String()
}

// runGates runs the gates in order until one fails, each visible in the stream as a
// tool execution named "gate", and records the result in report. It returns the failure,
// or nil when every gate passed.
func (a *Agent) runGates(ctx context.Context, report *GateReport) *gateFailure {
	opts := a.cfg.Gates.Tools
	opts.Cwd = a.cfg.Gates.Dir
	bash, err := tools.Select(opts, []string{"bash"})
	if err != nil {
		panic(err) // bash is one of the built-in tools
	}
	round := report.Retries + 1
	report.Ran = true
	for i, command := range a.cfg.Gates.Commands {
		raw := gateArgs(command, a.cfg.Gates.Timeout)
		id := fmt.Sprintf("gate-%d-%d", round, i+1)
		a.emit(&codec.ToolExecutionStart{ToolCallID: id, ToolName: gateToolName, Args: raw})
		res, err := bash[0].Execute(tools.WithCallID(ctx, id), raw, func(partial codec.ToolResult) {
			a.emit(&codec.ToolExecutionUpdate{ToolCallID: id, ToolName: gateToolName, Args: raw, PartialResult: partial})
		})
		if err != nil {
			res = errorResult(err.Error())
		}
		a.emit(&codec.ToolExecutionEnd{ToolCallID: id, ToolName: gateToolName,
			Result: codec.ToolResult{Content: res.Content, Details: res.Details}, IsError: res.IsError})
		if res.IsError {
			f := failedGate(command, res)
			report.Passed, report.Command, report.Status = false, command, f.status
			return f
		}
	}
	report.Passed, report.Command, report.Status = true, "", ""
	return nil
}

// gateArgs are the bash tool's arguments for a gate: {"command":…,"timeout":seconds}.
func gateArgs(command string, timeout time.Duration) json.RawMessage {
	b := codec.AppendString([]byte(`{"command":`), command)
	if timeout > 0 {
		b = append(b, `,"timeout":`...)
		b = strconv.AppendFloat(b, timeout.Seconds(), 'f', -1, 64)
	}
	return append(b, '}')
}

// failedGate reads a failed run of the bash tool: the status is the tool's own account of
// how the command ended, and its text is the output followed by that same note. A run that
// could not start has no status: its text says why.
func failedGate(command string, res tools.Result) *gateFailure {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*codec.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	text := strings.TrimRight(b.String(), "\n")
	if res.Status == "" {
		return &gateFailure{command: command, status: text}
	}
	output := strings.TrimRight(strings.TrimSuffix(text, res.Status), "\n")
	return &gateFailure{command: command, status: res.Status, output: tail(output, gateTailLines, gateTailBytes)}
}

// tail is the end of text: at most maxLines lines and maxBytes bytes, starting at a line
// (or inside the last line, at a rune, when that line alone is longer than maxBytes).
// A cut is marked with "…" on a line of its own.
func tail(text string, maxLines, maxBytes int) string {
	text = strings.TrimRight(text, "\n")
	kept := len(text) // text[kept:] is the tail
	end := len(text)
	for n := 0; n < maxLines; n++ {
		start := strings.LastIndexByte(text[:end], '\n') + 1
		if len(text)-start > maxBytes {
			break
		}
		kept = start
		if start == 0 {
			break
		}
		end = start - 1 // before the line feed
	}
	if kept == len(text) && text != "" {
		kept = len(text) - maxBytes
		for kept < len(text) && !utf8.RuneStart(text[kept]) {
			kept++
		}
	}
	if kept > 0 {
		return "…\n" + text[kept:]
	}
	return text
}
