package agent

import (
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
)

// The methods below let a controller that holds a conversation over many prompts (the rpc
// mode) read and change the agent between prompts. None of them may be called while a
// Prompt runs: the loop reads the configuration and the history without a lock.

// Messages returns a copy of the context: the messages the next request starts from.
func (a *Agent) Messages() []codec.Message {
	return append([]codec.Message(nil), a.history...)
}

// EntryIDs returns the session entry id of each message of Messages ("" where none).
func (a *Agent) EntryIDs() []string {
	return append([]string(nil), a.ids...)
}

// AddMessage appends m to the context and the session without a model call: a command the
// user ran, which the model sees with the next prompt.
func (a *Agent) AddMessage(m codec.Message) {
	a.keep(m, a.save(m))
}

// Model is the model the next request goes to.
func (a *Agent) Model() provider.Model { return a.cfg.Model }

// SetModel sends the next requests to m through p, recording the change in the session.
func (a *Agent) SetModel(m provider.Model, p provider.Provider) {
	a.cfg.Model, a.cfg.Provider = m, p
	if a.cfg.Store != nil {
		a.cfg.Store.AppendModelChange(m.Provider, m.ID)
	}
}

// ThinkingLevel is the thinking level of the next requests.
func (a *Agent) ThinkingLevel() string { return a.cfg.ThinkingLevel }

// SetThinkingLevel changes the thinking level of the next requests, recording the change.
func (a *Agent) SetThinkingLevel(level string) {
	a.cfg.ThinkingLevel = level
	if a.cfg.Store != nil {
		a.cfg.Store.AppendThinkingLevel(level)
	}
}

// AutoCompaction reports whether the context is compacted automatically.
func (a *Agent) AutoCompaction() bool { return a.cfg.Compaction.Auto }

// SetAutoCompaction turns automatic compaction on or off; manual compaction works either way.
func (a *Agent) SetAutoCompaction(on bool) { a.cfg.Compaction.Auto = on }

// Retry is the retry policy of transient provider failures.
func (a *Agent) Retry() RetryPolicy { return a.cfg.Retry }

// SetRetry replaces the retry policy.
func (a *Agent) SetRetry(p RetryPolicy) { a.cfg.Retry = p }

// SetQueueModes says how many waiting messages are delivered at once: steerAll delivers
// every steering message at the next turn boundary (else one per boundary), followAll every
// follow-up in one run when the agent would stop (else one per run). Safe to call from any
// goroutine; the defaults are all steering messages and one follow-up at a time.
func (a *Agent) SetQueueModes(steerAll, followAll bool) {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	a.queue.steerOne, a.queue.followAll = !steerAll, followAll
}

// takeFollowUps removes the follow-ups the next run opens with: the first one, or all of
// them (SetQueueModes).
func (a *Agent) takeFollowUps() []*codec.UserMessage {
	a.queue.mu.Lock()
	all := a.queue.followAll
	a.queue.mu.Unlock()
	var msgs []*codec.UserMessage
	for m := a.takeFollowUp(); m != nil; m = a.takeFollowUp() {
		msgs = append(msgs, m)
		if !all {
			break
		}
	}
	return msgs
}
