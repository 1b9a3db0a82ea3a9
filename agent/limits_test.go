package agent

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

func TestSaysDone(t *testing.T) {
	for text, want := range map[string]bool{
		"All finished.\n\nDONE":      true,
		"All finished.\nDone.":       true,
		"All finished.\n**DONE**\n ": true,
		"DONE":                       true,
		"Not DONE yet":               false,
		"DONE\nbut one more thing":   false,
		"":                           false,
		"I am done with step one.":   false,
		"All done":                   false,
		"Fixed it.\r\n# Done!\r\n":   true,
		"Fixed it.\n> `done`":        true,
		"- DONE":                     false,
	} {
		if got := saysDone(text); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		46*time.Millisecond + 300*time.Microsecond: "46ms",
		1500 * time.Millisecond:                    "1.5s",
		31*time.Minute + 2500*time.Millisecond:     "31m3s",
		time.Hour:                                  "1h0m0s",
		47 * time.Hour:                             "47h0m0s",
		60 * time.Hour:                             "3 days",
		math.MaxInt64:                              "106752 days",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// clock is a fake time that moves only when told.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func TestLimitsAreCheckedAtTurnBoundaries(t *testing.T) {
	loop := `{"responses":[{"tool_calls":[{"id":"c","name":"hook","args":{}}],"usage":{"input":300,"output":100}}]}`
	cases := []struct {
		limits Limits
		turns  int
		want   string
	}{
		{Limits{MaxTurns: 3}, 3, "max-turns reached (3/3)"},
		{Limits{MaxTokens: 1000}, 3, "max-tokens reached (1200/1000)"},
		{Limits{MaxTime: 90 * time.Second}, 2, "max-time reached (1m40s/1m30s)"},
	}
	for _, c := range cases {
		clk := &clock{now: time.Unix(0, 0)}
		hook := &hookTool{run: func() { clk.now = clk.now.Add(50 * time.Second) }}
		a, r, _ := testAgent(t, loop, Config{Tools: []tools.Tool{hook}, Limits: c.limits, Now: clk.Now})
		out := a.Prompt(context.Background(), userText("go"))
		if out.Limit == nil || out.Limit.Error() != c.want {
			t.Errorf("%+v: limit %v, want %s", c.limits, out.Limit, c.want)
			continue
		}
		if n := len(eventsOf[*codec.TurnStart](r)); n != c.turns {
			t.Errorf("%+v: %d turns, want %d", c.limits, n, c.turns)
		}
		// The run ends whole: its last events close the turn and the run.
		shapes := r.shapes()
		if tail := strings.Join(shapes[len(shapes)-2:], ","); tail != "turn_end,agent_end" {
			t.Errorf("%+v: ends with %s", c.limits, tail)
		}
	}
}

func TestAFinishedRunIsNotStoppedByALimit(t *testing.T) {
	a, _, _ := testAgent(t, `{"responses":[{"text":"done","usage":{"input":5000}}]}`, Config{Limits: Limits{MaxTurns: 1, MaxTokens: 10}})
	out := a.Prompt(context.Background(), userText("go"))
	if out.Limit != nil || out.Failed() {
		t.Fatalf("outcome %+v", out)
	}
}

func TestLimitsCountThePromptsOfOneRunOnly(t *testing.T) {
	a, _, _ := testAgent(t, `{"responses":[{"text":"one"},{"text":"two"}]}`, Config{Limits: Limits{MaxTurns: 1}})
	if out := a.Prompt(context.Background(), userText("a")); out.Limit != nil {
		t.Fatal(out.Limit)
	}
	if out := a.Prompt(context.Background(), userText("b")); out.Limit != nil {
		t.Fatalf("the second prompt inherited the first one's turns: %v", out.Limit)
	}
	// Within one prompt, follow-ups count: the second one would be turn 2.
	a, _, _ = testAgent(t, `{"responses":[{"text":"one"},{"text":"two"}]}`, Config{Limits: Limits{MaxTurns: 1}})
	a.FollowUp("b")
	out := a.Prompt(context.Background(), userText("a"))
	if out.Limit == nil || out.Limit.Limit != "max-turns" {
		t.Fatalf("outcome %+v", out)
	}
	if _, f := a.Queued(); len(f) != 1 {
		t.Fatalf("the follow-up left the queue: %v", f)
	}
}

func TestAutonomousContinuations(t *testing.T) {
	a, r, _ := testAgent(t, `{"responses":[{"text":"halfway"},{"text":"finished\nDONE"}]}`,
		Config{Autonomous: true, Limits: Limits{MaxContinuations: 3}})
	out := a.Prompt(context.Background(), userText("task"))
	if out.Failed() || out.Limit != nil || messageText(out.Final) != "finished\nDONE" {
		t.Fatalf("outcome %+v", out)
	}
	ends := eventsOf[*codec.AgentEnd](r)
	if len(ends) != 2 || messageText(ends[1].Messages[0]) != continuationPrompt {
		t.Fatalf("runs %+v", ends)
	}
	if !strings.Contains(a.cfg.SystemPrompt, "end your final reply with a line that reads DONE") {
		t.Fatalf("system prompt %q", a.cfg.SystemPrompt)
	}

	a, _, _ = testAgent(t, `{"responses":[{"text":"still working"}]}`, Config{Autonomous: true, Limits: Limits{MaxContinuations: 2}})
	out = a.Prompt(context.Background(), userText("task"))
	if out.Limit == nil || out.Limit.Error() != "max-continuations reached (2/2)" {
		t.Fatalf("outcome %+v", out.Limit)
	}
}

func TestNotAutonomousStopsWhenTheAgentStops(t *testing.T) {
	a, r, _ := testAgent(t, `{"responses":[{"text":"a question?"}]}`, Config{})
	a.Prompt(context.Background(), userText("task"))
	if n := len(eventsOf[*codec.AgentStart](r)); n != 1 {
		t.Fatalf("%d runs", n)
	}
}

func TestFormatDollars(t *testing.T) {
	for _, c := range []struct {
		d    float64
		min  int
		want string
	}{{0.50123, 4, "$0.5012"}, {0.5, 2, "$0.50"}, {0.001, 2, "$0.001"}, {2, 2, "$2.00"}, {0.0015, 4, "$0.0015"}} {
		if got := formatDollars(c.d, c.min); got != c.want {
			t.Errorf("formatDollars(%v, %d) = %q, want %q", c.d, c.min, got, c.want)
		}
	}
}

func TestMaxCostCountsSummaries(t *testing.T) {
	// $100 per million input tokens: the first response costs $0.90, the summary $0.10, the
	// answer $0.05.
	script := `{"responses":[
	 {"text":"reading","tool_calls":[{"id":"c1","name":"hook","args":{}}],"usage":{"input":9000}},
	 {"text":"THE SUMMARY","usage":{"input":1000}},
	 {"text":"the answer","usage":{"input":500}}
	]}`
	model := provider.Model{ID: "m", Provider: "script", API: "script", ContextWindow: 10000, Cost: provider.Prices{Input: 100}}
	a, _, _ := testAgent(t, script, Config{Model: model, Tools: []tools.Tool{&hookTool{}},
		Compaction: CompactionSettings{Auto: true, Reserve: 2000, Keep: 1}})
	out := a.Prompt(context.Background(), userText("please read"))
	if out.Failed() || math.Abs(a.use.cost-1.05) > 1e-9 {
		t.Fatalf("cost %v, want 1.05 (outcome %+v)", a.use.cost, out)
	}
	// A budget the first response uses up stops the run at the turn boundary.
	a, _, _ = testAgent(t, script, Config{Model: model, Tools: []tools.Tool{&hookTool{}}, Limits: Limits{MaxCost: 0.5}})
	out = a.Prompt(context.Background(), userText("please read"))
	if out.Limit == nil || out.Limit.Error() != "max-cost reached ($0.9000/$0.50)" {
		t.Fatalf("limit %v", out.Limit)
	}
}

func TestAutonomousRunEndsWithAStructuredAnswer(t *testing.T) {
	check := func(answer string) string {
		if strings.HasPrefix(answer, "{") {
			return ""
		}
		return "answer in JSON"
	}
	a, r, _ := testAgent(t, `{"responses":[{"text":"halfway"},{"text":"{\"ok\":true}"}]}`,
		Config{Autonomous: true, CheckAnswer: check, Limits: Limits{MaxContinuations: 3}})
	out := a.Prompt(context.Background(), userText("task"))
	if out.Failed() || out.Limit != nil || messageText(out.Final) != `{"ok":true}` {
		t.Fatalf("outcome %+v", out)
	}
	// The first answer got the correction prompt; the structured one ended the run, with no
	// continuation asking for DONE.
	ends := eventsOf[*codec.AgentEnd](r)
	if len(ends) != 2 || messageText(ends[1].Messages[0]) != "answer in JSON" {
		t.Fatalf("runs %+v", ends)
	}
	if strings.Contains(a.cfg.SystemPrompt, "DONE") {
		t.Fatalf("system prompt asks for DONE: %q", a.cfg.SystemPrompt)
	}
}
