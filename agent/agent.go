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

// RetryPolicy says how transient provider failures are retried (events.md "Retry"). Its
// zero value retries nothing; the documented default (3 retries at 2 s, 4 s, 8 s) is the
// CLI's flag defaults.
type RetryPolicy struct {
	MaxRetries int           // retries after the first attempt; 0 (or less) retries nothing
	BaseDelay  time.Duration // attempt n waits BaseDelay·2^(n-1); 0 retries at once
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
	Now  func() time.Time
}

// Agent runs prompts against a conversation.
type Agent struct {
	cfg     Config
	history []codec.Message // the context sent to the model

	mu      sync.Mutex
	emitErr error

	cancel context.CancelFunc
}

// New returns an agent with an empty conversation, or with history.
func New(cfg Config, history []codec.Message) *Agent {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Agent{cfg: cfg, history: history}
}

// Outcome is how a prompt's run ended.
type Outcome struct {
	// Final is the terminal assistant message (nil if none was produced).
	Final *codec.AssistantMessage
	// Err is set when the stream could not be written; the run stopped early.
	Err error
}

// Failed reports whether the run ended in error or aborted.
func (o Outcome) Failed() bool {
	return o.Final == nil || o.Final.StopReason == codec.StopReasonError || o.Final.StopReason == codec.StopReasonAborted
}

func (a *Agent) emit(e codec.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.emitErr != nil {
		return
	}
	if a.emitErr = a.cfg.Emit(e); a.emitErr != nil && a.cancel != nil {
		a.cancel() // nobody reads the stream any more: stop working
	}
}

func (a *Agent) emitFailed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.emitErr
}

func (a *Agent) nowMs() int64 { return a.cfg.Now().UnixMilli() }

func (a *Agent) save(m codec.Message) {
	if a.cfg.Store != nil {
		a.cfg.Store.AppendMessage(m) // a session that cannot be written must not stop the run
	}
}

// Prompt runs one prompt to its end: turns until the assistant stops, retrying transient
// provider failures. ctx cancellation aborts the run cleanly.
func (a *Agent) Prompt(ctx context.Context, user *codec.UserMessage) Outcome {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	a.cancel = cancel
	a.mu.Unlock()

	next := user // only the first cycle adds the user's message
	for retry := 0; ; retry++ {
		final, retryable := a.run(ctx, next, retry)
		next = nil
		failed := final.StopReason == codec.StopReasonError
		again := failed && retryable && retry < a.cfg.Retry.MaxRetries && ctx.Err() == nil && a.emitFailed() == nil
		if !again {
			if failed && retry > 0 {
				a.emit(&codec.AutoRetryEnd{Success: false, Attempt: int64(retry), FinalError: final.ErrorMessage})
			}
			return Outcome{Final: final, Err: a.emitFailed()}
		}
		delay := a.cfg.Retry.BaseDelay << retry
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

// run is one agent_start … agent_end cycle; retry is the retry attempt it is (0 for the
// first). It returns the terminal assistant message and whether its failure is transient.
func (a *Agent) run(ctx context.Context, user *codec.UserMessage, retry int) (final *codec.AssistantMessage, retryable bool) {
	a.emit(&codec.AgentStart{})
	a.emit(&codec.TurnStart{})
	var added []codec.Message
	if user != nil {
		a.emit(&codec.MessageStart{Message: user})
		a.emit(&codec.MessageEnd{Message: user})
		a.save(user)
		a.history = append(a.history, user)
		added = append(added, user)
	}
	for {
		final, retryable = a.respond(ctx, retry)
		retry = 0 // a retry ends with the first response that does not fail
		added = append(added, final)
		a.save(final)
		if final.StopReason == codec.StopReasonError || final.StopReason == codec.StopReasonAborted {
			a.emit(&codec.TurnEnd{Message: final, ToolResults: []*codec.ToolResultMessage{}})
			break
		}
		a.history = append(a.history, final)
		calls := toolCalls(final)
		if len(calls) == 0 {
			a.emit(&codec.TurnEnd{Message: final, ToolResults: []*codec.ToolResultMessage{}})
			break
		}
		results := a.runTools(ctx, calls)
		for _, r := range results {
			a.emit(&codec.MessageStart{Message: r})
			a.emit(&codec.MessageEnd{Message: r})
			a.save(r)
			a.history = append(a.history, r)
			added = append(added, r)
		}
		a.emit(&codec.TurnEnd{Message: final, ToolResults: results})
		if ctx.Err() != nil || a.emitFailed() != nil {
			// Aborted while tools ran: the run ends here, with the tools' results kept.
			break
		}
		a.emit(&codec.TurnStart{})
	}
	a.emit(&codec.AgentEnd{Messages: added})
	return final, retryable
}

func toolCalls(m *codec.AssistantMessage) []*codec.ToolCall {
	var calls []*codec.ToolCall
	for _, c := range m.Content {
		if tc, ok := c.(*codec.ToolCall); ok {
			calls = append(calls, tc)
		}
	}
	return calls
}

// respond streams one assistant message. When it is retry attempt n (> 0) and succeeds,
// the retry ends right after its message_end.
func (a *Agent) respond(ctx context.Context, retry int) (msg *codec.AssistantMessage, retryable bool) {
	m := a.cfg.Model
	msg = &codec.AssistantMessage{Content: []codec.Content{}, API: m.API, Provider: m.Provider, Model: m.ID,
		StopReason: codec.StopReasonStop, Timestamp: a.nowMs()}
	a.emit(&codec.MessageStart{Message: msg})
	asm := newAssembler(msg, a.emit)
	var err error
	if ctx.Err() == nil {
		err = a.cfg.Provider.Stream(ctx, a.request(), func(e provider.Event) {
			if ctx.Err() == nil {
				asm.handle(e)
			}
		})
	}
	var perr *provider.Error
	retryable = errors.As(err, &perr) && perr.Retryable
	asm.finish(err, ctx.Err() != nil)
	a.emit(&codec.MessageEnd{Message: msg})
	if retry > 0 && msg.StopReason != codec.StopReasonError {
		a.emit(&codec.AutoRetryEnd{Success: true, Attempt: int64(retry)})
	}
	return msg, retryable
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
		msgs = append(msgs, m)
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
	var tool tools.Tool
	for _, t := range a.cfg.Tools {
		if t.Name() == c.Name {
			tool = t
		}
	}
	if tool == nil {
		return errorResult("Tool " + c.Name + " not found")
	}
	defer func() {
		if r := recover(); r != nil {
			res = errorResult(fmt.Sprintf("tool %s failed: %v", c.Name, r))
		}
	}()
	res, err := tool.Execute(ctx, c.Arguments, func(partial codec.ToolResult) {
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
