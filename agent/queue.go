package agent

import (
	"context"
	"errors"
	"sync"
	"syscall"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
)

// previewRunes bounds the text of one queued prompt in session_action_update: the event
// shows what waits, not whole documents.
const previewRunes = 200

// queue holds the prompts waiting for the agent: steering messages, delivered at the next
// turn boundary of the running prompt, and follow-ups, delivered when the agent would
// otherwise stop. Every change is reported as a session_action_update snapshot while a
// prompt runs; changes made while the agent is idle are reported when the next prompt
// starts, in one snapshot with the active turn.
type queue struct {
	mu        sync.Mutex
	steering  []queued
	followUps []queued
	running   bool // a Prompt is in progress
	shown     bool // a snapshot was emitted during this Prompt: its end is reported too

	// ended: the running Prompt has decided to return and will not look at the queue again,
	// so Offer refuses what it could no longer deliver. The next Prompt reopens the queue.
	ended bool

	// How many waiting messages are delivered at once (controller.go): steering one per
	// turn boundary instead of all; follow-ups all in one run instead of one per run.
	steerOne, followAll bool
}

// queued is a waiting prompt. offered: it came from outside the run (Offer, from `send`),
// so if the run ends without delivering it, it is saved as undelivered for the next resume
// (the run's own prompts, follow-ups given with the first and continuation prompts, are
// not: they belong to this run).
type queued struct {
	text    string
	offered bool
}

// Steer queues a message for the running prompt: it is delivered as a user message at the
// next turn boundary, in the same run. Safe to call from any goroutine.
func (a *Agent) Steer(text string) {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	a.queue.steering = append(a.queue.steering, queued{text: text})
	a.reportQueueLocked()
}

// FollowUp queues a prompt that runs when the agent would otherwise stop, as a new run in
// the same stream. Safe to call from any goroutine.
func (a *Agent) FollowUp(text string) {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	a.queue.followUps = append(a.queue.followUps, queued{text: text})
	a.reportQueueLocked()
}

// ErrQueueEnded is a message offered once the prompt has ended or decided to end: it would
// never be delivered.
var ErrQueueEnded = errors.New("the run is finishing: the message would not be delivered")

// Offer queues a message from outside the run (steer: a steering message, else a follow-up)
// if it can still be delivered: once the running prompt has decided to end, it is refused
// with ErrQueueEnded rather than accepted and lost. Before the first prompt it is accepted,
// as Steer and FollowUp are. A message accepted is delivered, or, when the prompt is
// stopped or fails first, saved in the session as undelivered (endQueue). Safe to call
// from any goroutine.
func (a *Agent) Offer(steer bool, text string) error {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	if a.queue.ended {
		return ErrQueueEnded
	}
	q := queued{text: text, offered: true}
	if steer {
		a.queue.steering = append(a.queue.steering, q)
	} else {
		a.queue.followUps = append(a.queue.followUps, q)
	}
	a.reportQueueLocked()
	return nil
}

// endIfIdle is the running prompt's decision to stop: when nothing waits in the queue, the
// queue ends (Offer refuses from now on) and it returns true. Checking and ending under one
// lock leaves no moment in which an offered message is accepted but never taken.
func (a *Agent) endIfIdle() bool {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	if len(a.queue.steering)+len(a.queue.followUps) > 0 {
		return false
	}
	a.queue.ended = true
	return true
}

// Queued returns the waiting steering messages and follow-ups.
func (a *Agent) Queued() (steering, followUps []string) {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	return texts(a.queue.steering), texts(a.queue.followUps)
}

// takeSteering removes and returns the steering messages, as user messages.
func (a *Agent) takeSteering() []*codec.UserMessage {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	if len(a.queue.steering) == 0 {
		return nil
	}
	take := a.queue.steering
	if a.queue.steerOne {
		take = take[:1]
	}
	msgs := make([]*codec.UserMessage, len(take))
	for i, q := range take {
		msgs[i] = a.userMessage(q.text)
	}
	a.queue.steering = a.queue.steering[len(take):]
	a.reportQueueLocked()
	return msgs
}

// hasSteering reports whether steering messages wait.
func (a *Agent) hasSteering() bool {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	return len(a.queue.steering) > 0
}

// hasQueued reports whether steering messages or follow-ups wait.
func (a *Agent) hasQueued() bool {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	return len(a.queue.steering)+len(a.queue.followUps) > 0
}

// takeFollowUp removes the first follow-up, as a user message; nil when none waits.
func (a *Agent) takeFollowUp() *codec.UserMessage {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	if len(a.queue.followUps) == 0 {
		return nil
	}
	q := a.queue.followUps[0]
	a.queue.followUps = a.queue.followUps[1:]
	a.reportQueueLocked()
	return a.userMessage(q.text)
}

func (a *Agent) userMessage(text string) *codec.UserMessage {
	return &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: text}}, Timestamp: a.nowMs()}
}

// beginQueue marks a prompt as running, reporting what already waits.
func (a *Agent) beginQueue() {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	a.queue.running = true
	a.queue.ended = false
	a.queue.shown = false
	if len(a.queue.steering)+len(a.queue.followUps) > 0 {
		a.reportQueueLocked()
	}
}

// endQueue marks the prompt as ended; if its queue was shown, the final snapshot has no
// active turn and shows what is left undelivered. The messages offered from outside that
// are left are saved in the session as undelivered, for the next resume to deliver first;
// a prompt that was stopped (ctx cancelled) says so in the session too, since its last
// message may not show it (an abort during tools ends with their results).
func (a *Agent) endQueue(ctx context.Context) {
	a.queue.mu.Lock()
	defer a.queue.mu.Unlock()
	a.queue.running = false
	a.queue.ended = true
	if a.queue.shown {
		a.emit(a.snapshotLocked())
		a.queue.shown = false
	}
	// Steering before follow-ups, as they would have been delivered.
	for _, q := range a.queue.steering {
		if q.offered {
			a.saveEntry(session.TypeCustom, session.UndeliveredFields(session.KindSteer, q.text))
		}
	}
	for _, q := range a.queue.followUps {
		if q.offered {
			a.saveEntry(session.TypeCustom, session.UndeliveredFields(session.KindFollowUp, q.text))
		}
	}
	switch emitErr := a.emitFailed(); {
	case a.saveFailed() != nil:
	case emitErr != nil && !errors.Is(emitErr, syscall.EPIPE):
		// The stream could not be written: the run failed, though its last message shows an
		// abort. (A reader that left, a broken pipe, only stopped it.)
		a.saveEntry(session.TypeCustom, session.FailedFields(emitErr.Error()))
	case ctx.Err() != nil:
		a.saveEntry(session.TypeCustom, session.CustomFields(session.CustomStopped, nil))
	}
}

// reportQueueLocked emits the queue's snapshot while a prompt runs. It is called with the
// queue locked, so snapshots reach the stream in the order of the changes they show.
func (a *Agent) reportQueueLocked() {
	if !a.queue.running {
		return
	}
	a.queue.shown = true
	a.emit(a.snapshotLocked())
}

func (a *Agent) snapshotLocked() *codec.SessionActionUpdate {
	q := &a.queue
	acts := codec.SessionActions{
		QueuedCount: int64(len(q.steering) + len(q.followUps)),
		Steering:    previews(texts(q.steering)),
		FollowUps:   previews(texts(q.followUps)),
	}
	if q.running {
		acts.Active = &codec.ActiveAction{Kind: "turn", Phase: "running"}
	}
	return &codec.SessionActionUpdate{Actions: acts}
}

func texts(qs []queued) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.text
	}
	return out
}

func previews(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = preview(t)
	}
	return out
}

// preview is text cut to previewRunes runes, with an ellipsis when cut.
func preview(text string) string {
	n := 0
	for i := range text {
		if n == previewRunes {
			return text[:i] + "…"
		}
		n++
	}
	return text
}
