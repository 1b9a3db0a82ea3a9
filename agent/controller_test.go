package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

// userTurns lists, per turn_start, the user messages that opened the turn or run.
func runsOfUsers(rec *recorder) [][]string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out [][]string
	for _, e := range rec.events {
		switch e := e.(type) {
		case *codec.TurnStart:
			out = append(out, nil)
		case *codec.MessageEnd:
			if e.Message.Role() == "user" {
				out[len(out)-1] = append(out[len(out)-1], messageText(e.Message))
			}
		}
	}
	return out
}

func TestSteeringOneAtATime(t *testing.T) {
	var ag *Agent
	hook := &hookTool{run: func() { ag.Steer("s1"); ag.Steer("s2") }}
	ag, rec, _ := testAgent(t, hookThenAnswers, Config{Tools: []tools.Tool{hook}})
	ag.SetQueueModes(false, false)
	ag.Prompt(context.Background(), userText("start"))
	got := runsOfUsers(rec)
	if len(got) != 3 || len(got[1]) != 1 || got[1][0] != "s1" || len(got[2]) != 1 || got[2][0] != "s2" {
		t.Fatalf("turns opened by %v, want [start] [s1] [s2]", got)
	}
}

func TestFollowUpsAllAtOnce(t *testing.T) {
	ag, rec, _ := testAgent(t, `{"responses":[{"text":"one"},{"text":"two"},{"text":"three"}]}`, Config{})
	ag.SetQueueModes(true, true)
	ag.FollowUp("f1")
	ag.FollowUp("f2")
	out := ag.Prompt(context.Background(), userText("first"))
	if messageText(out.Final) != "two" {
		t.Fatalf("final %q", messageText(out.Final))
	}
	if n := len(eventsOf[*codec.AgentStart](rec)); n != 2 {
		t.Fatalf("%d runs, want 2 (the prompt, then both follow-ups in one)", n)
	}
	got := runsOfUsers(rec)
	if len(got) != 2 || len(got[1]) != 2 || got[1][0] != "f1" || got[1][1] != "f2" {
		t.Fatalf("runs opened by %v", got)
	}
}

// Between prompts a controller reads the context, adds messages and changes settings.
func TestControllerBetweenPrompts(t *testing.T) {
	store := session.NewMemory()
	ag, _, _ := testAgent(t, `{"responses":[{"text":"one"},{"text":"two"}]}`, Config{Store: store})
	ag.Prompt(context.Background(), userText("first"))
	if n := len(ag.Messages()); n != 2 {
		t.Fatalf("%d messages after a prompt, want 2", n)
	}
	zero := int64(0)
	ag.AddMessage(&codec.BashExecutionMessage{Command: "ls", Output: "a\n", ExitCode: &zero})
	msgs, ids := ag.Messages(), ag.EntryIDs()
	if len(msgs) != 3 || msgs[2].Role() != "bashExecution" || ids[2] == "" {
		t.Fatalf("after AddMessage: %d messages, ids %v", len(msgs), ids)
	}
	m := ag.Model()
	m.ID = "other"
	ag.SetModel(m, ag.cfg.Provider)
	ag.SetThinkingLevel("high")
	if ag.Model().ID != "other" || ag.ThinkingLevel() != "high" {
		t.Fatalf("settings not changed")
	}
	var changes []string
	for _, e := range store.Entries() {
		if e.Type == session.TypeModelChange || e.Type == session.TypeThinkingLevelChange {
			changes = append(changes, string(e.Raw))
		}
	}
	if len(changes) != 2 || !strings.Contains(changes[0], `"modelId":"other"`) || !strings.Contains(changes[1], `"thinkingLevel":"high"`) {
		t.Fatalf("session entries %v", changes)
	}
	// The next request carries the bash output and goes to the new model.
	out := ag.Prompt(context.Background(), userText("second"))
	if out.Final.Model != "other" {
		t.Fatalf("the next response came from %q", out.Final.Model)
	}
}
