// Package agent is the agent loop: a prompt becomes turns of model responses and tool runs,
// each step an event of the stream, every message saved to the session.
package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

// RetryPolicy says how transient provider failures are retried (docs/stream.md "Retries"). Its
// zero value retries nothing; the documented default (3 retries at 2 s, 4 s, 8 s) is the
// CLI's flag defaults.
type RetryPolicy struct {
	MaxRetries int           // retries after the first attempt; 0 (or less) retries nothing
	BaseDelay  time.Duration // attempt n waits BaseDelay·2^(n-1), or longer when the provider asks (Retry-After)
	MaxDelay   time.Duration // a longer Retry-After is not waited for: the failure is final; 0 is no cap
}

// Config is what an Agent needs.
type Config struct {
	Provider      provider.Provider
	Model         provider.Model
	Tools         []tools.Tool
	SystemPrompt  string
	ThinkingLevel string
	Store         session.Store
	Retry         RetryPolicy
	// Emit receives every event in stream order. Calls are serialized; the event must be
	// fully consumed (encoded) before Emit returns. An error stops the run (a closed
	// stdout, say).
	Emit func(codec.Event) error
	// Flush, when set, is called after the events of each provider chunk and after every
	// other event, so that an output that batches its writes shows each chunk as it comes.
	Flush func() error
	Now   func() time.Time

	// Compaction keeps the context under the model's window (compaction.go).
	Compaction CompactionSettings
	// Autonomous keeps the agent working without a human: when it would stop without
	// saying it is done, a continuation prompt is queued (limits.go).
	Autonomous bool
	// Limits bound a prompt's run; zero fields are no limit (limits.go).
	Limits Limits
	// CheckAnswer, when set, checks the answer the agent would stop with: it returns "" when
	// the answer will do, else the correction prompt queued as a follow-up (once per prompt).
	CheckAnswer func(answer string) (correction string)
	// Permission, when set, is asked before each tool call runs (permission.go).
	Permission Permission
	// Gates are the commands that decide when an autonomous run is done (gates.go).
	Gates GateSettings
	// HistoryEntryIDs are the session entry ids of the history given to New, one per
	// message ("" where there is none), as session.Loaded.ContextEntryIDs returns them.
	// A compaction names the first message it keeps by its entry id.
	HistoryEntryIDs []string
	// Preserve, when set, is what a compaction adds to its summary of msgs so that it
	// stays in force (the text of the skills activated in them).
	Preserve func(msgs []codec.Message) string
}

// Agent runs prompts against a conversation.
type Agent struct {
	cfg     Config
	history []codec.Message // the context sent to the model
	ids     []string        // the session entry id of each history message ("" if none)

	// usageFrom is the first history index whose assistant usage measures the current
	// context: messages before it were summarised or loaded, so their usage is stale.
	usageFrom int
	// overflowRetried is set by a compaction after a context overflow and cleared by the
	// next response that succeeds: the failed request is retried once, not forever.
	overflowRetried bool
	// compactionErr is a failed compaction that stopped the run.
	compactionErr error

	use usage // what the running prompt has used, against the limits

	mu        sync.Mutex
	emitErr   error
	saveErr   *SaveError // the first write to the session that failed: nothing is saved after it
	inChunk   bool       // events of one provider chunk are being emitted: flushed at its end
	unflushed bool       // events were emitted since the last flush

	cancel context.CancelCauseFunc

	// repaired is set once the history's unanswered tool calls are answered (Prompt).
	repaired bool

	queue queue // steering messages and follow-ups (queue.go)
}

// New returns an agent with an empty conversation, or with history.
func New(cfg Config, history []codec.Message) *Agent {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Autonomous || len(cfg.Gates.Commands) > 0 {
		cfg.Autonomous = true
		cfg.SystemPrompt += autonomyNote(cfg.Gates.Commands, cfg.CheckAnswer != nil)
	}
	a := &Agent{cfg: cfg, history: history, ids: make([]string, len(history))}
	copy(a.ids, cfg.HistoryEntryIDs)
	a.usageFrom = usageStart(history)
	return a
}

// Outcome is how a prompt's run ended.
type Outcome struct {
	// Final is the terminal assistant message (nil if none was produced).
	Final *codec.AssistantMessage
	// Err is set when the stream could not be written; the run stopped early.
	Err error
	// Interrupted: the prompt's context was cancelled (Ctrl-C, `stop`) before it ended. An
	// abort during tools ends with their results, not with an aborted message.
	Interrupted bool
	// SaveErr is set when the session could not be written; the run stopped early (its
	// last message aborted, saying why) and what followed is not in the session.
	SaveErr *SaveError
	// CompactionErr is a compaction that failed and stopped the run.
	CompactionErr error
	// Limit is the limit that stopped the run before it finished.
	Limit *LimitError
	// Gates reports the gates of an autonomous run; nil when none are configured.
	Gates *GateReport

	command bool // the last prompt was a session command (/compact), not a model run
}

// Failed reports whether the run ended in error or aborted (also during its tools), or a
// compaction or a save failed.
func (o Outcome) Failed() bool {
	if o.CompactionErr != nil || o.SaveErr != nil || o.Interrupted {
		return true
	}
	if o.Final == nil {
		return !o.command
	}
	return o.Final.StopReason == codec.StopReasonError || o.Final.StopReason == codec.StopReasonAborted
}

func (a *Agent) emit(e codec.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.emitErr != nil {
		return
	}
	a.emitErr = a.cfg.Emit(e)
	a.unflushed = true
	if !a.inChunk {
		a.flushLocked()
	}
	if a.emitErr != nil && a.cancel != nil {
		a.cancel(errStreamGone) // nobody reads the stream any more: stop working
	}
}

// SaveError is a write to the session that failed: the run ends, since going on would
// do work the session does not record.
type SaveError struct{ Err error }

// Error reads "cannot save the session: <why>".
func (e *SaveError) Error() string { return "cannot save the session: " + e.Err.Error() }

func (e *SaveError) Unwrap() error { return e.Err }

// saveFailed is the session write that failed, nil while every one succeeded.
func (a *Agent) saveFailed() *SaveError {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.saveErr
}

// store runs one write to the session, unless an earlier one failed (a session with a gap
// would be resumed as if nothing were missing). A failure aborts the running prompt.
func (a *Agent) store(write func(session.Store) error) error {
	if a.cfg.Store == nil {
		return nil
	}
	if err := a.saveFailed(); err != nil {
		return err
	}
	err := write(a.cfg.Store)
	if err == nil {
		return nil
	}
	a.mu.Lock()
	first := a.saveErr == nil
	if first {
		a.saveErr = &SaveError{Err: err}
	}
	serr, cancel := a.saveErr, a.cancel
	a.mu.Unlock()
	if first && cancel != nil {
		cancel(serr)
	}
	return serr
}

// saveEntry appends an entry of another type than message (a compaction, a custom entry)
// to a session that takes them.
func (a *Agent) saveEntry(typ string, fields []byte) error {
	return a.store(func(s session.Store) error {
		_, err := s.AppendEntry(typ, fields)
		return err
	})
}

// chunk runs handle, which emits the events of one provider chunk, and flushes them
// together.
func (a *Agent) chunk(handle func()) {
	a.mu.Lock()
	a.inChunk = true
	a.mu.Unlock()
	handle()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inChunk = false
	a.flushLocked()
	if a.emitErr != nil && a.cancel != nil {
		a.cancel(errStreamGone)
	}
}

// errStreamGone is why a run whose stream could not be written stopped.
var errStreamGone = errors.New("the stream could not be written")

func (a *Agent) flushLocked() {
	if a.unflushed && a.emitErr == nil && a.cfg.Flush != nil {
		a.emitErr = a.cfg.Flush()
	}
	a.unflushed = false
}

func (a *Agent) emitFailed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.emitErr
}

func (a *Agent) nowMs() int64 { return a.cfg.Now().UnixMilli() }

// save appends m to the session and returns its entry id ("" when it has none, or the
// write failed: that ends the run, see store).
func (a *Agent) save(m codec.Message) string {
	var id string
	a.store(func(s session.Store) (err error) {
		id, err = s.AppendMessage(m)
		return err
	})
	return id
}

// answerUnansweredCalls gives each tool call of the history that has no result (its run
// was killed during its tools) an error result, in the session and in the context, before
// the conversation goes on: providers refuse a call without its result.
func (a *Agent) answerUnansweredCalls() {
	if a.repaired {
		return
	}
	a.repaired = true
	for _, c := range session.UnansweredCalls(a.history) {
		r := &codec.ToolResultMessage{ToolCallID: c.ID, ToolName: c.Name, IsError: true, Timestamp: a.nowMs(),
			Content: []codec.Content{&codec.TextContent{Text: UnfinishedToolText}}}
		a.keep(r, a.save(r))
	}
}

// UnfinishedToolText is the result given to a tool call its run never answered.
const UnfinishedToolText = "the run ended before this tool finished"

// keep adds a message to the context, with its session entry id.
func (a *Agent) keep(m codec.Message, id string) {
	a.history = append(a.history, m)
	a.ids = append(a.ids, id)
}

// Prompt runs one prompt to its end (users are its messages, which open the first turn
// together; they are usually one): turns until the assistant stops, retrying transient
// provider failures; then the queued follow-ups, each a run of its own. In an autonomous run
// the agent is then checked: gates run, or a continuation prompt is queued, until it is done
// or a limit stops it. A "/compact [instructions]" prompt compacts the context instead of
// going to the model. ctx cancellation aborts the run cleanly.
func (a *Agent) Prompt(ctx context.Context, users ...*codec.UserMessage) (out Outcome) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	a.mu.Lock()
	a.cancel = cancel
	a.mu.Unlock()
	a.beginQueue()
	defer func() {
		a.endQueue(ctx)
		out.SaveErr = a.saveFailed()
		out.Interrupted = ctx.Err() != nil
		if limit := timeLimitHit(ctx); limit != nil {
			// Cut by --max-time: the run stopped at its limit, it was not interrupted, and a
			// compaction it cut short did not fail.
			out.Limit, out.Interrupted = limit, false
			if cut := (*LimitError)(nil); errors.As(out.CompactionErr, &cut) {
				out.CompactionErr = nil // cut by the limit; one that failed of itself stays
			}
		}
	}()
	a.use = usage{start: a.cfg.Now()}
	defer a.boundTime(cancel)()
	a.compactionErr = nil
	a.answerUnansweredCalls()

	if len(a.cfg.Gates.Commands) > 0 {
		out.Gates = &GateReport{}
	}
	var next []*codec.UserMessage // the messages that open the first turn
	for _, u := range users {
		if u != nil {
			next = append(next, u)
		}
	}
	for {
		if instructions, ok := compactCommand(only(next)); ok {
			out.command = true
			if err := a.Compact(ctx, instructions); err != nil {
				out.CompactionErr = err
				out.Err = a.emitFailed()
				return out
			}
		} else {
			o := a.promptOnce(ctx, next...)
			out.Final, out.Err, out.CompactionErr, out.command = o.Final, o.Err, o.CompactionErr, false
			out.Limit = a.use.limitHit
			if out.Err != nil || out.Failed() || out.Limit != nil || ctx.Err() != nil {
				return out
			}
		}
		// The agent would stop here: what it was asked to do next comes first (steering
		// that arrived as it stopped, then follow-ups); then an autonomous run checks
		// whether it is done.
		if !a.hasQueued() && !out.command {
			a.checkAnswer(out.Final)
		}
		if !a.hasQueued() && a.cfg.Autonomous && !out.command {
			done := a.checkDone(ctx, &out)
			if ctx.Err() != nil || out.Limit != nil || (done && a.endIfIdle()) {
				out.Err = a.emitFailed()
				return out
			}
		}
		if a.endIfIdle() { // atomically: a message offered from now on is refused, not lost
			return out
		}
		if out.Limit = a.limitReached(); out.Limit != nil {
			return out
		}
		if next = a.takeSteering(); next == nil {
			next = a.takeFollowUps()
		}
	}
}

// only is the single message of msgs, nil when there are more or none.
func only(msgs []*codec.UserMessage) *codec.UserMessage {
	if len(msgs) != 1 {
		return nil
	}
	return msgs[0]
}

// promptOnce runs user messages to their end, with retries: a transient failure runs the
// request again after a pause; a context overflow compacts and runs it again once.
func (a *Agent) promptOnce(ctx context.Context, users ...*codec.UserMessage) Outcome {
	if err := a.compactIfNeeded(ctx, users...); err != nil {
		return Outcome{Err: a.emitFailed(), CompactionErr: err}
	}
	next := users // only the first cycle adds the user's messages
	for retry := 0; ; retry++ {
		final, fail := a.run(ctx, next, retry)
		next = nil
		if a.compactionErr != nil {
			return Outcome{Final: final, Err: a.emitFailed(), CompactionErr: a.compactionErr}
		}
		failed := final.StopReason == codec.StopReasonError
		// With nothing older to summarise (the prompt alone is too long) the overflow is an
		// ordinary failure: the provider's message says more than a failed compaction would.
		if failed && fail.overflow && a.cfg.Compaction.Auto && !a.overflowRetried && ctx.Err() == nil && a.emitFailed() == nil && a.canCompact() {
			if retry > 0 {
				a.emit(&codec.AutoRetryEnd{Success: false, Attempt: int64(retry), FinalError: final.ErrorMessage})
			}
			a.overflowRetried = true
			if err := a.compact(ctx, ReasonOverflow, "", true); err != nil {
				return Outcome{Final: final, Err: a.emitFailed(), CompactionErr: err}
			}
			retry = -1 // the request runs again as a new cycle, not as a transient retry
			continue
		}
		delay := max(a.cfg.Retry.BaseDelay<<retry, fail.retryAfter)
		again := failed && fail.retryable && retry < a.cfg.Retry.MaxRetries && ctx.Err() == nil && a.emitFailed() == nil &&
			!a.waitTooLong(fail, retry)
		if !again {
			if failed && retry > 0 {
				a.emit(&codec.AutoRetryEnd{Success: false, Attempt: int64(retry), FinalError: final.ErrorMessage})
			}
			return Outcome{Final: final, Err: a.emitFailed()}
		}
		a.emit(&codec.AutoRetryStart{Attempt: int64(retry + 1), MaxAttempts: int64(a.cfg.Retry.MaxRetries),
			DelayMs: delay.Milliseconds(), ErrorMessage: final.ErrorMessage})
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			a.emit(&codec.AutoRetryEnd{Success: false, Attempt: int64(retry + 1), FinalError: final.ErrorMessage})
			return Outcome{Final: final, Err: a.emitFailed()}
		}
	}
}

// waitTooLong reports whether a transient failure that retry attempt n would retry asks
// for a longer pause than the cap: it is not retried, since waiting less than the provider
// asked would only fail again.
func (a *Agent) waitTooLong(fail failure, retry int) bool {
	p := a.cfg.Retry
	return fail.retryable && retry < p.MaxRetries && p.MaxDelay > 0 && fail.retryAfter > p.MaxDelay
}

// failure says what kind of failure a response ended in.
type failure struct {
	retryable  bool          // transient: worth retrying after a pause
	retryAfter time.Duration // the pause the provider asked for, 0 when none
	overflow   bool          // the request did not fit the model's context window
}

// run is one agent_start … agent_end cycle, opened by the users' messages (none for a
// retry); retry is the retry attempt it is (0 for the first). It returns the terminal
// assistant message and what kind of failure it ended in. Between turns it delivers
// steering messages, compacts when the context nears the window, and stops when a limit
// is reached.
func (a *Agent) run(ctx context.Context, users []*codec.UserMessage, retry int) (final *codec.AssistantMessage, fail failure) {
	a.emit(&codec.AgentStart{})
	a.emit(&codec.TurnStart{})
	var added []codec.Message
	pending := users // user messages that open the turn
	for {
		for _, m := range pending {
			a.emit(&codec.MessageStart{Message: m})
			a.emit(&codec.MessageEnd{Message: m})
			a.keep(m, a.save(m))
			added = append(added, m)
		}
		final, fail = a.respond(ctx, retry)
		retry = 0 // a retry ends with the first response that does not fail
		added = append(added, final)
		id := a.save(final)
		if final.StopReason == codec.StopReasonError || final.StopReason == codec.StopReasonAborted {
			a.emit(&codec.TurnEnd{Message: final, ToolResults: []*codec.ToolResultMessage{}})
			break
		}
		a.overflowRetried = false
		a.use.turns++
		a.keep(final, id)
		calls := final.ToolCalls()
		results := []*codec.ToolResultMessage{}
		if len(calls) > 0 {
			results = a.runTools(ctx, calls)
		}
		for _, r := range results {
			a.emit(&codec.MessageStart{Message: r})
			a.emit(&codec.MessageEnd{Message: r})
			a.keep(r, a.save(r))
			added = append(added, r)
		}
		a.emit(&codec.TurnEnd{Message: final, ToolResults: results})
		if a.saveFailed() != nil && a.emitFailed() == nil {
			// The session lost a message of this turn: the run ends with an aborted
			// message saying why, in a turn of its own (the model is not called).
			pending = nil
			a.emit(&codec.TurnStart{})
			continue
		}
		if ctx.Err() != nil || a.emitFailed() != nil {
			// Aborted while tools ran: the run ends here, with the tools' results kept.
			break
		}
		if len(calls) == 0 && !a.hasSteering() {
			break // the assistant is done; follow-ups are new runs
		}
		// A turn boundary: limits are checked, steering messages open the next turn, and
		// the context is compacted if the next request would come near the window.
		if a.use.limitHit = a.limitReached(); a.use.limitHit != nil {
			break
		}
		pending = a.takeSteering()
		if err := a.compactIfNeeded(ctx, pending...); err != nil {
			a.compactionErr = err
			break
		}
		a.emit(&codec.TurnStart{})
	}
	a.emit(&codec.AgentEnd{Messages: added})
	return final, fail
}

// respond streams one assistant message. When it is retry attempt n (> 0) and succeeds,
// the retry ends right after its message_end.
func (a *Agent) respond(ctx context.Context, retry int) (msg *codec.AssistantMessage, fail failure) {
	m := a.cfg.Model
	msg = &codec.AssistantMessage{Content: []codec.Content{}, API: m.API, Provider: m.Provider, Model: m.ID,
		StopReason: codec.StopReasonStop, Timestamp: a.nowMs()}
	a.emit(&codec.MessageStart{Message: msg})
	asm := newAssembler(msg, a.emit)
	var err error
	if ctx.Err() == nil {
		err = a.cfg.Provider.Stream(ctx, a.request(), func(e provider.Event) {
			if ctx.Err() == nil {
				a.chunk(func() { asm.handle(e) })
			}
		})
	}
	var perr *provider.Error
	if errors.As(err, &perr) {
		fail.retryable, fail.retryAfter, fail.overflow = perr.Retryable, perr.RetryAfter, perr.Overflow
	}
	asm.finish(err, ctx.Err() != nil)
	if serr := a.saveFailed(); serr != nil && msg.StopReason == codec.StopReasonAborted {
		msg.ErrorMessage = serr.Error()
	}
	if limit := timeLimitHit(ctx); limit != nil && msg.StopReason == codec.StopReasonAborted {
		msg.ErrorMessage = limit.Error() // the stream says why the answer stops here
	}
	if msg.StopReason == codec.StopReasonError && a.waitTooLong(fail, retry) {
		// The retry is refused below; the message says why, where the user sees the error.
		msg.ErrorMessage += ": the provider asked to wait " + formatDuration(fail.retryAfter) +
			", more than --max-retry-delay " + formatDuration(a.cfg.Retry.MaxDelay)
	}
	a.use.tokens += msg.Usage.TotalTokens
	a.use.cost += msg.Usage.Cost.Total
	a.emit(&codec.MessageEnd{Message: msg})
	if retry > 0 && msg.StopReason != codec.StopReasonError {
		a.emit(&codec.AutoRetryEnd{Success: true, Attempt: int64(retry)})
	}
	return msg, fail
}

func (a *Agent) request() provider.Request {
	specs := make([]provider.ToolSpec, len(a.cfg.Tools))
	for i, t := range a.cfg.Tools {
		specs[i] = provider.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()}
	}
	msgs := make([]codec.Message, 0, len(a.history))
	for _, m := range a.history {
		if am, ok := m.(*codec.AssistantMessage); ok && (am.StopReason == codec.StopReasonError || am.StopReason == codec.StopReasonAborted) {
			continue // failed responses are not part of the conversation the model sees
		}
		// Messages the protocols have no role for (summaries, commands the user ran) go as
		// user messages, converted in one place.
		if m = provider.AsUserMessage(m); m != nil {
			msgs = append(msgs, m)
		}
	}
	return provider.Request{Model: a.cfg.Model, SystemPrompt: a.cfg.SystemPrompt, Messages: msgs,
		Tools: specs, ThinkingLevel: a.cfg.ThinkingLevel}
}

// runTools runs the calls concurrently: starts in call order, ends in completion order,
// results returned in call order.
func (a *Agent) runTools(ctx context.Context, calls []*codec.ToolCall) []*codec.ToolResultMessage {
	for _, c := range calls {
		a.emit(&codec.ToolExecutionStart{ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
	}
	results := make([]*codec.ToolResultMessage, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := a.execute(ctx, c)
			a.emit(&codec.ToolExecutionEnd{ToolCallID: c.ID, ToolName: c.Name,
				Result: codec.ToolResult{Content: res.Content, Details: res.Details}, IsError: res.IsError})
			results[i] = &codec.ToolResultMessage{ToolCallID: c.ID, ToolName: c.Name, Content: res.Content,
				Details: res.Details, IsError: res.IsError, Timestamp: a.nowMs()}
		}()
	}
	wg.Wait()
	return results
}

func errorResult(text string) tools.Result {
	return tools.Result{Content: []codec.Content{&codec.TextContent{Text: text}}, IsError: true}
}

func (a *Agent) execute(ctx context.Context, c *codec.ToolCall) (res tools.Result) {
	if serr := a.saveFailed(); serr != nil {
		// Its call is not in the session: what it did would not be recorded.
		return errorResult("Tool " + c.Name + " was not run: " + serr.Error())
	}
	var tool tools.Tool
	for _, t := range a.cfg.Tools {
		if t.Name() == c.Name {
			tool = t
		}
	}
	if tool == nil {
		return errorResult("Tool " + c.Name + " not found")
	}
	if err := a.permit(ctx, c); err != nil {
		return errorResult(err.Error())
	}
	defer func() {
		if r := recover(); r != nil {
			res = errorResult(fmt.Sprintf("tool %s failed: %v", c.Name, r))
		}
	}()
	res, err := tool.Execute(tools.WithCallID(ctx, c.ID), c.Arguments, func(partial codec.ToolResult) {
		a.emit(&codec.ToolExecutionUpdate{ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments, PartialResult: partial})
	})
	if err != nil {
		return errorResult(err.Error())
	}
	if res.Content == nil {
		res.Content = []codec.Content{}
	}
	return res
}
