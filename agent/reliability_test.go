package agent

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

// failingStore is a session whose writes fail from the n-th message on (counted from 1), as
// a full disk would make them.
type failingStore struct {
	*session.Memory
	failFrom, writes int
}

func (s *failingStore) AppendMessage(m codec.Message) (string, error) {
	s.writes++
	if s.writes >= s.failFrom {
		return "", syscall.ENOSPC
	}
	return s.Memory.AppendMessage(m)
}

func TestFailedSaveEndsTheRun(t *testing.T) {
	const script = `{"responses":[{"tool_calls":[{"id":"c1","name":"hook","args":{}}]},{"text":"never asked"}]}`
	for _, tc := range []struct {
		name     string
		failFrom int
		shapes   string
		hookRuns int
	}{
		// The user message: the model is never called.
		{"prompt", 1, "agent_start turn_start message_start user message_end user message_start assistant message_end assistant turn_end agent_end", 0},
		// The tool call: the tool is not run (its call is not in the session), the run
		// ends in a turn of its own with the aborted message.
		{"tool call", 2, "agent_start turn_start message_start user message_end user message_start assistant message_end assistant tool_execution_start hook tool_execution_end hook message_start toolResult message_end toolResult turn_end turn_start message_start assistant message_end assistant turn_end agent_end", 0},
		// The tool result: the tool ran, nothing more is asked of the model.
		{"tool result", 3, "agent_start turn_start message_start user message_end user message_start assistant message_end assistant tool_execution_start hook tool_execution_end hook message_start toolResult message_end toolResult turn_end turn_start message_start assistant message_end assistant turn_end agent_end", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &failingStore{Memory: session.NewMemory(), failFrom: tc.failFrom}
			runs := 0
			hook := &hookTool{run: func() { runs++ }}
			ag, rec, _ := testAgent(t, script, Config{Store: store, Tools: []tools.Tool{hook}})
			if err := ag.Offer(true, "sent meanwhile"); err != nil {
				t.Fatal(err)
			}
			out := ag.Prompt(context.Background(), userText("go"))
			if out.SaveErr == nil || !errors.Is(out.SaveErr, syscall.ENOSPC) || !out.Failed() {
				t.Fatalf("outcome: save error %v, failed %v", out.SaveErr, out.Failed())
			}
			want := "cannot save the session: " + syscall.ENOSPC.Error()
			if out.SaveErr.Error() != want {
				t.Errorf("save error %q, want %q", out.SaveErr.Error(), want)
			}
			if out.Final.StopReason != codec.StopReasonAborted || out.Final.ErrorMessage != want {
				t.Errorf("final message: %s %q, want aborted %q", out.Final.StopReason, out.Final.ErrorMessage, want)
			}
			// The queue's snapshots open and close it: the offered message stays queued.
			got := strings.Join(rec.shapes(), " ")
			if g := strings.TrimSuffix(strings.TrimPrefix(got, "session_action_update "), " session_action_update"); len(g) == len(got)-2*len(" session_action_update") {
				got = g
			}
			if got != tc.shapes {
				t.Errorf("events:\n%s\nwant\n%s", got, tc.shapes)
			}
			if runs != tc.hookRuns {
				t.Errorf("the tool ran %d times, want %d", runs, tc.hookRuns)
			}
			// Nothing is written after the failure: not even the undelivered message.
			if store.writes != tc.failFrom {
				t.Errorf("%d message writes, want %d (none after the failure)", store.writes, tc.failFrom)
			}
			for _, e := range store.Entries() {
				if e.Type == session.TypeCustom {
					t.Errorf("written after the failure: %s", e.Raw)
				}
			}
		})
	}
}

// A message accepted by Offer that the run does not deliver, because it fails or is
// stopped first, is saved as undelivered, and shown in the last session_action_update.
func TestUndeliveredMessagesAreSaved(t *testing.T) {
	const script = `{"responses":[{"tool_calls":[{"id":"c1","name":"hook","args":{}}]},{"status":400,"message":"bad request"}]}`
	for _, stop := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var ag *Agent
		hook := &hookTool{run: func() {
			ag.Offer(true, "steer me")
			ag.Offer(false, "then this")
			if stop {
				cancel()
			}
		}}
		store := session.NewMemory()
		ag, rec, _ := testAgent(t, script, Config{Store: store, Tools: []tools.Tool{hook}})
		ag.FollowUp("the run's own prompt") // not saved: it belongs to this run
		out := ag.Prompt(ctx, userText("go"))
		cancel()
		if !out.Failed() && !stop {
			t.Fatalf("stop %v: the run did not fail", stop)
		}
		var custom []string
		for _, e := range store.Entries() {
			if e.Type == session.TypeCustom {
				custom = append(custom, string(e.Raw[strings.Index(string(e.Raw), `"customType"`):]))
			}
		}
		// A failure after the tool: the steering message was delivered at the turn boundary,
		// the follow-up never was. Stopped during the tool: neither.
		want := []string{`"customType":"base-context.undelivered","data":{"kind":"followUp","text":"then this"}}`}
		wantSteering := ""
		if stop {
			want = []string{`"customType":"base-context.undelivered","data":{"kind":"steer","text":"steer me"}}`,
				want[0], `"customType":"base-context.stopped"}`}
			wantSteering = "steer me"
		}
		if strings.Join(custom, "\n") != strings.Join(want, "\n") {
			t.Errorf("stop %v: custom entries\n%s\nwant\n%s", stop, strings.Join(custom, "\n"), strings.Join(want, "\n"))
		}
		updates := eventsOf[*codec.SessionActionUpdate](rec)
		last := updates[len(updates)-1].Actions
		if last.Active != nil || strings.Join(last.Steering, ",") != wantSteering ||
			strings.Join(last.FollowUps, ",") != "the run's own prompt,then this" {
			t.Errorf("stop %v: last session_action_update %+v", stop, last)
		}
		if _, isLast := rec.events[len(rec.events)-1].(*codec.SessionActionUpdate); !isLast {
			t.Errorf("stop %v: the queue's last snapshot is not the last event", stop)
		}
	}
}

func TestUnansweredCallsAreAnsweredFirst(t *testing.T) {
	call := &codec.ToolCall{ID: "c1", Name: "bash", Arguments: []byte(`{}`)}
	answered := &codec.ToolCall{ID: "c2", Name: "read", Arguments: []byte(`{}`)}
	history := []codec.Message{
		userText("go"),
		&codec.AssistantMessage{Content: []codec.Content{call, answered}, StopReason: codec.StopReasonToolUse},
		&codec.ToolResultMessage{ToolCallID: "c2", ToolName: "read", Content: []codec.Content{}},
	}
	store := session.NewMemory()
	ag, _, _ := testAgent(t, `{"responses":[{"text":"ok"}]}`, Config{Store: store})
	ag.history, ag.ids = history, make([]string, len(history))
	ag.Prompt(context.Background(), userText("go on"))
	ms := store.Messages()
	if len(ms) != 3 {
		t.Fatalf("saved %d messages, want the result, the prompt, the answer", len(ms))
	}
	r, ok := ms[0].(*codec.ToolResultMessage)
	if !ok || r.ToolCallID != "c1" || r.ToolName != "bash" || !r.IsError || messageText(&codec.AssistantMessage{Content: r.Content}) != UnfinishedToolText {
		t.Fatalf("first saved message %+v, want an error result for c1", ms[0])
	}
	if u, ok := ms[1].(*codec.UserMessage); !ok || messageText(u) != "go on" {
		t.Fatalf("second saved message %+v, want the prompt", ms[1])
	}
	if got := session.UnansweredCalls(ag.history); len(got) != 0 {
		t.Fatalf("still unanswered: %v", got)
	}
}
