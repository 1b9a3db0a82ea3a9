package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

func TestGateArgs(t *testing.T) {
	if got := string(gateArgs(`make test && echo "<ok>"`, 1500*time.Millisecond)); got != `{"command":"make test && echo \"<ok>\"","timeout":1.5}` {
		t.Fatal(got)
	}
	if got := string(gateArgs("true", 0)); got != `{"command":"true"}` {
		t.Fatal(got)
	}
}

func TestTail(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString("line ")
			b.WriteString(strings.Repeat("x", i%7))
			b.WriteString("\n")
		}
		return b.String()
	}
	if got := tail("a\nb\n", 40, 4000); got != "a\nb" {
		t.Fatalf("%q", got)
	}
	if got := tail("", 40, 4000); got != "" {
		t.Fatalf("%q", got)
	}
	got := tail(lines(100), 40, 4000)
	if n := strings.Count(got, "\n"); n != 40 || !strings.HasPrefix(got, "…\n") {
		t.Fatalf("%d line feeds: %q", n, got)
	}
	got = tail(lines(100), 1000, 50)
	if len(got) > 50+len("…\n") || !strings.HasPrefix(got, "…\nline") {
		t.Fatalf("%q", got)
	}
	// One line longer than the byte limit: its end, at a rune boundary.
	got = tail(strings.Repeat("é", 100), 40, 51)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "é") || len(got) > 51+len("…\n") {
		t.Fatalf("%q", got)
	}
}

func FuzzTail(f *testing.F) {
	f.Add("a\nb\nc\n", 2, 3)
	f.Add("ééé\n\n\nx", 1, 2)
	f.Fuzz(func(t *testing.T, text string, maxLines, maxBytes int) {
		if maxLines < 1 || maxBytes < 4 || maxLines > 100 || maxBytes > 1000 {
			t.Skip()
		}
		got := tail(text, maxLines, maxBytes)
		body := strings.TrimPrefix(got, "…\n")
		trimmed := strings.TrimRight(text, "\n")
		if !strings.HasSuffix(trimmed, body) {
			t.Fatalf("%q is not the end of %q", body, trimmed)
		}
		if len(body) > maxBytes {
			t.Fatalf("%d bytes > %d", len(body), maxBytes)
		}
		if strings.Count(body, "\n") >= maxLines {
			t.Fatalf("%d lines > %d", strings.Count(body, "\n")+1, maxLines)
		}
		if (body != trimmed) != strings.HasPrefix(got, "…\n") {
			t.Fatalf("cut not marked: %q of %q", got, trimmed)
		}
		if utf8.ValidString(trimmed) && !utf8.ValidString(body) {
			t.Fatalf("cut inside a rune: %q", body)
		}
	})
}

func TestFailedGateReadsTheBashResult(t *testing.T) {
	res := tools.Result{Content: []codec.Content{&codec.TextContent{Text: "FAIL: TestX\nexpected 1\n\nCommand exited with code 1"}},
		IsError: true, Status: "Command exited with code 1"}
	f := failedGate("go test", res)
	if f.status != "Command exited with code 1" || f.output != "FAIL: TestX\nexpected 1" {
		t.Fatalf("%+v", f)
	}
	p := f.prompt()
	if !strings.HasPrefix(p, "The gate `go test` failed: Command exited with code 1. The end of its output:\n\n```\nFAIL: TestX\nexpected 1\n```") {
		t.Fatalf("%q", p)
	}
	silent := failedGate("false", tools.Result{Content: []codec.Content{&codec.TextContent{Text: "Command exited with code 1"}},
		IsError: true, Status: "Command exited with code 1"})
	if silent.output != "" || !strings.Contains(silent.prompt(), "It printed nothing.") {
		t.Fatalf("%+v", silent)
	}
	// A run that could not start has no status: its text says why.
	unstarted := failedGate("true", tools.Result{Content: []codec.Content{&codec.TextContent{Text: "working directory /gone does not exist"}}, IsError: true})
	if unstarted.status != "working directory /gone does not exist" || unstarted.output != "" {
		t.Fatalf("%+v", unstarted)
	}
}

// The status comes from the bash tool's result, not from reading its text: output with
// blank lines, or whose last paragraph looks like a note, is quoted whole.
func TestFailedGateTakesTheStatusFromTheBashTool(t *testing.T) {
	bash, err := tools.Select(tools.Options{Cwd: t.TempDir()}, []string{"bash"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, status, output string }{
		{`{"command":"printf 'one\\n\\ntwo\\n\\nCommand exited with code 0\\n'; exit 5"}`, "Command exited with code 5",
			"one\n\ntwo\n\nCommand exited with code 0"},
		{`{"command":"exit 2"}`, "Command exited with code 2", ""},
	} {
		res, err := bash[0].Execute(context.Background(), []byte(c.args), nil)
		if err != nil || !res.IsError || res.Status != c.status {
			t.Fatalf("%s: %+v %v", c.args, res, err)
		}
		if f := failedGate("g", res); f.status != c.status || f.output != c.output {
			t.Fatalf("%s: status %q output %q", c.args, f.status, f.output)
		}
	}
	res, err := bash[0].Execute(context.Background(), []byte(`{"command":"echo ok"}`), nil)
	if err != nil || res.IsError || res.Status != "" {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestGatesDecideWhenTheRunIsDone(t *testing.T) {
	dir := t.TempDir()
	// The agent "fixes" the file from its hook tool in the second response.
	hook := &hookTool{run: func() { os.WriteFile(filepath.Join(dir, "ok"), nil, 0o644) }}
	a, r, _ := testAgent(t, `{"responses":[
	 {"text":"done"},
	 {"tool_calls":[{"id":"c","name":"hook","args":{}}]},
	 {"text":"fixed"}
	]}`, Config{Tools: []tools.Tool{hook}, Gates: GateSettings{Commands: []string{"echo first", "test -f ok"}, Retries: 3, Dir: dir}})
	out := a.Prompt(context.Background(), userText("task"))
	g := out.Gates
	if out.Failed() || g == nil || !g.Ran || !g.Passed || g.Retries != 1 {
		t.Fatalf("outcome %+v gates %+v", out, g)
	}
	var ids []string
	for _, e := range eventsOf[*codec.ToolExecutionEnd](r) {
		if e.ToolName == gateToolName {
			ids = append(ids, e.ToolCallID+map[bool]string{true: " failed", false: " passed"}[e.IsError])
		}
	}
	if want := "gate-1-1 passed,gate-1-2 failed,gate-2-1 passed,gate-2-2 passed"; strings.Join(ids, ",") != want {
		t.Fatalf("gate runs %s, want %s", strings.Join(ids, ","), want)
	}
	if !strings.Contains(a.cfg.SystemPrompt, "- test -f ok\n") {
		t.Fatalf("the system prompt does not name the gates: %q", a.cfg.SystemPrompt)
	}
}

func TestGatesThatNeverPass(t *testing.T) {
	a, r, _ := testAgent(t, `{"responses":[{"text":"done"}]}`,
		Config{Gates: GateSettings{Commands: []string{"echo nope; exit 2"}, Retries: 2, Dir: t.TempDir()}})
	out := a.Prompt(context.Background(), userText("task"))
	g := out.Gates
	if g.Passed || !g.Ran || g.Retries != 2 || g.Command != "echo nope; exit 2" || g.Status != "Command exited with code 2" {
		t.Fatalf("gates %+v", g)
	}
	if n := len(eventsOf[*codec.AgentStart](r)); n != 3 {
		t.Fatalf("%d runs, want the first and two retries", n)
	}
}

func TestGatesDoNotRunWhenTheRunFails(t *testing.T) {
	a, r, _ := testAgent(t, `{"responses":[{"status":400,"message":"bad"}]}`,
		Config{Gates: GateSettings{Commands: []string{"true"}, Dir: t.TempDir()}})
	out := a.Prompt(context.Background(), userText("task"))
	if out.Gates == nil || out.Gates.Ran || !out.Failed() {
		t.Fatalf("outcome %+v", out)
	}
	if n := len(eventsOf[*codec.ToolExecutionStart](r)); n != 0 {
		t.Fatalf("%d gate runs", n)
	}
}

func TestSteeringThatArrivesWhileGatesRunIsDeliveredAndTheGatesRunAgain(t *testing.T) {
	a, r, _ := testAgent(t, `{"responses":[{"text":"done"},{"text":"steered"}]}`,
		Config{Gates: GateSettings{Commands: []string{"true"}, Dir: t.TempDir()}})
	emit := a.cfg.Emit
	steered := false
	a.cfg.Emit = func(e codec.Event) error {
		if end, ok := e.(*codec.ToolExecutionEnd); ok && end.ToolName == gateToolName && !steered {
			// As if `send --steer` arrived while the gate ran (this runs on the loop's own
			// goroutine, so the queue can be changed directly).
			steered = true
			a.queue.mu.Lock()
			a.queue.steering = append(a.queue.steering, queued{text: "also do this", offered: true})
			a.queue.mu.Unlock()
		}
		return emit(e)
	}
	out := a.Prompt(context.Background(), userText("task"))
	if out.Failed() || !out.Gates.Passed || messageText(out.Final) != "steered" {
		t.Fatalf("outcome %+v", out)
	}
	if n := len(eventsOf[*codec.AgentStart](r)); n != 2 {
		t.Fatalf("%d runs, want 2", n)
	}
	gates := 0
	for _, e := range eventsOf[*codec.ToolExecutionStart](r) {
		if e.ToolName == gateToolName {
			gates++
		}
	}
	if gates != 2 {
		t.Fatalf("%d gate runs, want 2", gates)
	}
}
