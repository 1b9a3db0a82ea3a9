package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/basecontext/base-context/codec"
)

// Limits bound what one Prompt may use. A zero field is no limit. They are checked at turn
// boundaries (and before each follow-up, continuation or gate prompt), never in the middle
// of a response or a tool run, so a run stopped by one ends with a complete context. MaxTime
// alone also interrupts whatever the run is waiting on when it is reached (a response, a
// tool, a gate, a compaction, a retry's pause): a stalled provider or a hung tool must not
// outlast it.
type Limits struct {
	MaxTurns         int           // model responses that succeeded
	MaxTokens        int64         // usage totals of every model call, summaries included
	MaxTime          time.Duration // wall time since the prompt started
	MaxContinuations int           // continuation prompts of an autonomous run
	MaxCost          float64       // dollars of every model call, summaries included, at the catalog's prices
}

// Defaults of an autonomous run (the CLI applies them when --autonomous is given).
var DefaultLimits = Limits{MaxTurns: 12, MaxTokens: 80000, MaxTime: 30 * time.Minute, MaxContinuations: 3}

// OrDefaults is l with DefaultLimits' value for each limit l does not set: the limits of an
// autonomous run. (The cost has no default.)
func (l Limits) OrDefaults() Limits {
	d := DefaultLimits
	l.MaxTurns = cmp.Or(l.MaxTurns, d.MaxTurns)
	l.MaxTokens = cmp.Or(l.MaxTokens, d.MaxTokens)
	l.MaxTime = cmp.Or(l.MaxTime, d.MaxTime)
	l.MaxContinuations = cmp.Or(l.MaxContinuations, d.MaxContinuations)
	return l
}

// LimitError is a limit that stopped a run before it finished.
type LimitError struct {
	Limit     string // the flag's name: max-turns, max-tokens, max-time, max-continuations
	Used, Max string
}

// Error reads "<limit> reached (<used>/<max>)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s reached (%s/%s)", e.Limit, e.Used, e.Max)
}

// usage is what the running prompt has used so far.
type usage struct {
	start         time.Time
	turns         int
	tokens        int64
	continuations int
	cost          float64     // dollars
	corrected     bool        // the answer check has queued its correction prompt
	limitHit      *LimitError // set when a limit stopped the run
}

// limitReached returns the first limit the prompt has reached, or nil.
func (a *Agent) limitReached() *LimitError {
	l, u := a.cfg.Limits, &a.use
	switch {
	case l.MaxTurns > 0 && u.turns >= l.MaxTurns:
		return &LimitError{"max-turns", strconv.Itoa(u.turns), strconv.Itoa(l.MaxTurns)}
	case l.MaxTokens > 0 && u.tokens >= l.MaxTokens:
		return &LimitError{"max-tokens", strconv.FormatInt(u.tokens, 10), strconv.FormatInt(l.MaxTokens, 10)}
	case l.MaxCost > 0 && u.cost >= l.MaxCost:
		return &LimitError{"max-cost", formatDollars(u.cost, 4), formatDollars(l.MaxCost, 2)}
	case l.MaxTime > 0:
		if took := a.cfg.Now().Sub(u.start); took >= l.MaxTime {
			return &LimitError{"max-time", formatDuration(took), formatDuration(l.MaxTime)}
		}
	}
	return nil
}

// boundTime arms the run's MaxTime: when it is reached, cancel interrupts the run with the
// limit as the cause (timeLimitHit). It returns the function that disarms it.
func (a *Agent) boundTime(cancel context.CancelCauseFunc) (disarm func()) {
	limit := a.cfg.Limits.MaxTime
	if limit <= 0 {
		return func() {}
	}
	start := a.use.start
	t := time.AfterFunc(limit, func() {
		took := max(a.cfg.Now().Sub(start), limit)
		cancel(&LimitError{"max-time", formatDuration(took), formatDuration(limit)})
	})
	return func() { t.Stop() }
}

// timeLimitHit is the max-time limit that interrupted ctx, nil when it was not one.
func timeLimitHit(ctx context.Context) *LimitError {
	var limit *LimitError
	if errors.As(context.Cause(ctx), &limit) {
		return limit
	}
	return nil
}

// formatDollars shows an amount with at least min decimals, more when it has them (up to 4):
// $0.5012, $0.50, $0.125.
func formatDollars(d float64, min int) string {
	s := strconv.FormatFloat(d, 'f', 4, 64)
	s = strings.TrimRight(s, "0")
	if dot := strings.IndexByte(s, '.'); len(s)-dot-1 < min {
		s += strings.Repeat("0", min-(len(s)-dot-1))
	}
	return "$" + s
}

// formatDuration shows a duration to the millisecond below a minute, to the second above,
// in whole days from two days on (a Retry-After of 1e300 is "106752 days", not
// "2562047h47m16.854775807s").
func formatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d < time.Minute:
		return d.Round(time.Millisecond).String()
	case d < 2*day:
		return d.Round(time.Second).String()
	}
	days := d / day
	if d%day >= day/2 {
		days++
	}
	return strconv.FormatInt(int64(days), 10) + " days"
}

// doneMarker is how the model says, in an autonomous run without gates, that the task is
// complete: the last line of its answer.
const doneMarker = "DONE"

// continuationPrompt is queued when an autonomous run's agent stops without saying it is
// done.
const continuationPrompt = "Continue working on the task on your own; nobody will answer questions. If it is " +
	"complete, check your work and end your reply with a line that reads " + doneMarker + "."

// autonomyNote is added to the system prompt of an autonomous run.
// With structured, the answer's format (Config.CheckAnswer) says it is complete instead of
// the done marker.
func autonomyNote(gates []string, structured bool) string {
	var b strings.Builder
	b.WriteString("\n\nYou are working autonomously: nobody reads your messages until you finish, so do not ask " +
		"questions or wait for confirmation; decide and keep working until the task is complete.")
	if len(gates) == 0 && structured {
		b.WriteString(" When it is complete, give your final answer in the required format.")
		return b.String()
	}
	if len(gates) == 0 {
		b.WriteString(" When it is complete, end your final reply with a line that reads " + doneMarker + ".")
		return b.String()
	}
	b.WriteString(" When you stop, these commands check your work in the working directory; the task is " +
		"complete only when every one of them exits with status 0:\n")
	for _, g := range gates {
		b.WriteString("- " + g + "\n")
	}
	return b.String()
}

// saysDone reports whether an answer ends with the done marker on a line of its own
// (case and surrounding markup aside: "**Done.**" counts).
func saysDone(text string) bool {
	text = strings.TrimRight(text, " \t\r\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	last = strings.Trim(last, " \t*_`.!#>")
	return strings.EqualFold(last, doneMarker)
}

// checkDone decides, when an autonomous run's agent would stop, whether it is finished.
// With gates, the gates decide: they run, and a failure queues a prompt with what failed
// (until the retries are used up, which finishes the run as failed). Without gates, the
// agent's answer decides: without the done marker a continuation prompt is queued, up to
// the continuation limit.
func (a *Agent) checkDone(ctx context.Context, out *Outcome) (finished bool) {
	if len(a.cfg.Gates.Commands) > 0 {
		failed := a.runGates(ctx, out.Gates)
		if failed == nil || ctx.Err() != nil {
			return true
		}
		if out.Gates.Retries >= a.cfg.Gates.Retries {
			return true
		}
		out.Gates.Retries++
		a.FollowUp(failed.prompt())
		return false
	}
	if text := AnswerText(out.Final); saysDone(text) || (a.cfg.CheckAnswer != nil && a.cfg.CheckAnswer(text) == "") {
		return true // an answer in the required format is the final one
	}
	if max := a.cfg.Limits.MaxContinuations; max > 0 && a.use.continuations >= max {
		out.Limit = &LimitError{"max-continuations", strconv.Itoa(a.use.continuations), strconv.Itoa(max)}
		return false
	}
	a.use.continuations++
	a.FollowUp(continuationPrompt)
	return false
}

// AnswerText is the text of an assistant message, "" for none.
func AnswerText(m *codec.AssistantMessage) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range m.Content {
		if t, ok := c.(*codec.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
