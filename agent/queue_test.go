package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

const hookThenAnswers = `{"responses":[
 {"text":"calling","tool_calls":[{"id":"c1","name":"hook","args":{}}]},
 {"text":"answer two"},
 {"text":"answer three"},
 {"text":"answer four"}
]}`

func TestSteerIsDeliveredAtTheNextTurnBoundary(t *testing.T) {
	var ag *Agent
	hook := &hookTool{run: func() { ag.Steer("change course") }}
	ag, rec, _ := testAgent(t, hookThenAnswers, Config{Tools: []tools.Tool{hook}})
	out := ag.Prompt(context.Background(), userText("start"))
	if out.Failed() || messageText(out.Final) != "answer two" {
		t.Fatalf("outcome %+v", out.Final)
	}
	want := []string{
		"agent_start", "turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_end assistant",
		"tool_execution_start hook", "session_action_update", "tool_execution_end hook",
		"message_start toolResult", "message_end toolResult", "turn_end",
		"session_action_update", // the steering message leaves the queue
		"turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_end assistant", "turn_end",
		"agent_end",
		"session_action_update", // the prompt's end: nothing active
	}
	if got := rec.shapes(); joinShapes(got) != joinShapes(want) {
		t.Fatalf("events:\n%s\nwant:\n%s", joinShapes(got), joinShapes(want))
	}
	ups := eventsOf[*codec.SessionActionUpdate](rec)
	if a := ups[0].Actions; a.QueuedCount != 1 || len(a.Steering) != 1 || a.Steering[0] != "change course" || a.Active == nil {
		t.Errorf("first snapshot %+v", a)
	}
	if a := ups[1].Actions; a.QueuedCount != 0 || len(a.Steering) != 0 || a.Active == nil {
		t.Errorf("second snapshot %+v", a)
	}
	if a := ups[2].Actions; a.QueuedCount != 0 || a.Active != nil {
		t.Errorf("last snapshot %+v", a)
	}
	// One run: agent_end holds the steering message among its messages.
	ends := eventsOf[*codec.AgentEnd](rec)
	if len(ends) != 1 || len(ends[0].Messages) != 5 || messageText(ends[0].Messages[3]) != "change course" {
		t.Fatalf("agent_end %+v", ends)
	}
}

// afterRequest wraps a provider: after request n (from 1) has streamed, it calls fn, at a
// point where the loop has not yet looked at the queue.
type afterRequest struct {
	provider.Provider
	n, seen int
	fn      func()
}

func (p *afterRequest) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) error {
	err := p.Provider.Stream(ctx, req, emit)
	if p.seen++; p.seen == p.n {
		p.fn()
	}
	return err
}

func TestSteerWhenTheAgentWouldStopOpensAnotherTurn(t *testing.T) {
	ag, rec, s := testAgent(t, `{"responses":[{"text":"first"},{"text":"second"}]}`, Config{})
	ag.cfg.Provider = &afterRequest{Provider: s, n: 1, fn: func() { ag.Steer("one more thing") }}
	out := ag.Prompt(context.Background(), userText("go"))
	if messageText(out.Final) != "second" {
		t.Fatalf("final %q", messageText(out.Final))
	}
	if n := len(eventsOf[*codec.TurnStart](rec)); n != 2 {
		t.Fatalf("%d turns, want 2", n)
	}
	if n := len(eventsOf[*codec.AgentStart](rec)); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
	ends := eventsOf[*codec.AgentEnd](rec)
	if msgs := ends[0].Messages; len(msgs) != 4 || messageText(msgs[2]) != "one more thing" {
		t.Fatalf("agent_end messages %v", msgs)
	}
}

func TestFollowUpsRunAfterThePromptEachAsItsOwnRun(t *testing.T) {
	ag, rec, _ := testAgent(t, `{"responses":[{"text":"one"},{"text":"two"},{"text":"three"}]}`, Config{})
	ag.FollowUp("second prompt")
	ag.FollowUp("third prompt")
	if len(rec.events) != 0 {
		t.Fatalf("an idle agent reported its queue: %v", rec.shapes())
	}
	out := ag.Prompt(context.Background(), userText("first prompt"))
	if messageText(out.Final) != "three" {
		t.Fatalf("final %q", messageText(out.Final))
	}
	ups := eventsOf[*codec.SessionActionUpdate](rec)
	var got []string
	for _, u := range ups {
		active := "idle"
		if u.Actions.Active != nil {
			active = u.Actions.Active.Kind + "/" + u.Actions.Active.Phase
		}
		got = append(got, strings.Join(u.Actions.FollowUps, "|")+" "+active)
	}
	want := []string{"second prompt|third prompt turn/running", "third prompt turn/running", " turn/running", " idle"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("snapshots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(eventsOf[*codec.AgentStart](rec)); n != 3 {
		t.Fatalf("%d runs, want 3", n)
	}
	if s, f := ag.Queued(); len(s)+len(f) != 0 {
		t.Fatalf("left queued: %v %v", s, f)
	}
}

func TestAFailedRunLeavesItsFollowUpsQueued(t *testing.T) {
	ag, rec, _ := testAgent(t, `{"responses":[{"status":400,"message":"bad request"}]}`, Config{})
	ag.FollowUp("later")
	out := ag.Prompt(context.Background(), userText("now"))
	if !out.Failed() {
		t.Fatal("run did not fail")
	}
	if _, f := ag.Queued(); len(f) != 1 || f[0] != "later" {
		t.Fatalf("queue %v", f)
	}
	ups := eventsOf[*codec.SessionActionUpdate](rec)
	last := ups[len(ups)-1].Actions
	if last.QueuedCount != 1 || last.Active != nil {
		t.Fatalf("last snapshot %+v", last)
	}
}

func TestNoQueueNoSnapshots(t *testing.T) {
	ag, rec, _ := testAgent(t, `{"responses":[{"text":"hi"}]}`, Config{})
	ag.Prompt(context.Background(), userText("hello"))
	if n := len(eventsOf[*codec.SessionActionUpdate](rec)); n != 0 {
		t.Fatalf("%d snapshots without a queue", n)
	}
}

func TestQueueIsSafeFromOtherGoroutines(t *testing.T) {
	var ag *Agent
	var wg sync.WaitGroup
	hook := &hookTool{run: func() {
		for i := 0; i < 50; i++ {
			wg.Add(2)
			go func() { defer wg.Done(); ag.Steer("s") }()
			go func() { defer wg.Done(); ag.FollowUp("f") }()
		}
		wg.Wait()
	}}
	ag, rec, _ := testAgent(t, `{"responses":[{"tool_calls":[{"id":"c1","name":"hook","args":{}}]},{"text":"done"}]}`,
		Config{Tools: []tools.Tool{hook}})
	ag.Prompt(context.Background(), userText("go"))
	// Snapshots reach the stream in the order of the changes: the queued count never
	// jumps by more than one between consecutive snapshots while things are added.
	ups := eventsOf[*codec.SessionActionUpdate](rec)
	for i := 1; i <= 100; i++ {
		if got := ups[i-1].Actions.QueuedCount; got != int64(i) {
			t.Fatalf("snapshot %d shows %d queued", i, got)
		}
	}
}

func TestPreviewCutsLongPrompts(t *testing.T) {
	long := strings.Repeat("é", previewRunes+5)
	p := preview(long)
	if want := strings.Repeat("é", previewRunes) + "…"; p != want {
		t.Fatalf("preview %q", p)
	}
	if preview("short") != "short" {
		t.Fatal("short text changed")
	}
}
