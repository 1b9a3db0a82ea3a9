package stages_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The golden files of testdata/golden were written by the code they check. These tests check
// them independently, against facts computed here from the reference streams with
// encoding/json alone (no codec, no stage), as a jq program would: were a golden file
// rewritten from broken code, they fail.

// refEvent is a decoded line of a reference stream.
type refEvent map[string]any

func (e refEvent) str(k string) string { s, _ := e[k].(string); return s }
func (e refEvent) obj(k string) refEvent {
	m, _ := e[k].(map[string]any)
	return m
}

func decodeStream(t *testing.T, data []byte) []refEvent {
	t.Helper()
	var out []refEvent
	for _, l := range lines(data) {
		var e refEvent
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("%v: %.200s", err, l)
		}
		out = append(out, e)
	}
	return out
}

// blocksText joins the blocks of kind ("text" or "thinking") of a message.
func blocksText(msg refEvent, kind string) []string {
	var out []string
	content, _ := msg["content"].([]any)
	for _, b := range content {
		if b, ok := b.(map[string]any); ok && b["type"] == kind {
			out = append(out, b[kind].(string))
		}
	}
	return out
}

// refFacts are what the verdict and text goldens must say of a reference stream.
type refFacts struct {
	sessionID                 string
	turns, retries, compacts  int
	toolCalls                 map[string][2]int // name: calls, errors
	usage                     map[string]float64
	lastStop, lastError       string
	completed, truncated      bool
	answer, follow, reasoning string // text mode, --follow, and the thinking of the answer
}

func factsOf(events []refEvent) refFacts {
	f := refFacts{toolCalls: map[string][2]int{}, usage: map[string]float64{}}
	var last refEvent
	runs := 0
	for i, e := range events {
		switch e.str("type") {
		case "session":
			if i == 0 {
				f.sessionID = e.str("id")
			}
		case "agent_start":
			runs++
		case "agent_end":
			runs--
		case "turn_start":
			f.turns++
		case "auto_retry_start":
			f.retries++
		case "compaction_end":
			f.compacts++
		case "tool_execution_start":
			c := f.toolCalls[e.str("toolName")]
			c[0]++
			f.toolCalls[e.str("toolName")] = c
		case "tool_execution_end":
			if e["isError"] == true {
				c := f.toolCalls[e.str("toolName")]
				c[1]++
				f.toolCalls[e.str("toolName")] = c
			}
		case "message_end":
			msg := e.obj("message")
			if msg.str("role") != "assistant" {
				continue
			}
			last = msg
			u := msg.obj("usage")
			for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"} {
				f.usage[k] += u[k].(float64)
			}
			f.usage["cost"] += u.obj("cost")["total"].(float64)
			if text := strings.Join(blocksText(msg, "text"), ""); text != "" {
				f.follow += text + "\n"
			}
		}
	}
	f.truncated = len(events) == 0 || runs != 0
	if last != nil {
		f.lastStop, f.lastError = last.str("stopReason"), last.str("errorMessage")
		switch f.lastStop {
		case "stop", "length", "toolUse":
			f.completed = !f.truncated
		}
		if f.completed {
			f.answer = strings.Join(blocksText(last, "text"), "") + "\n"
			for _, th := range blocksText(last, "thinking") {
				f.reasoning += th + "\n\n"
			}
		}
	}
	return f
}

func TestGoldenVerdictsAgreeWithTheStreams(t *testing.T) {
	for name, full := range referenceStreams(t) {
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl")
		t.Run(stem, func(t *testing.T) {
			f := factsOf(decodeStream(t, full))
			data, err := os.ReadFile(filepath.Join("../testdata/golden/verdict", stem+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var g struct {
				Status, Reason, StopReason, ErrorMessage, SessionID string
				Truncated                                           bool
				Turns, Retries, Compactions                         int
				ToolCalls                                           map[string]struct{ Calls, Errors int }
				Usage                                               struct {
					Input, Output, CacheRead, CacheWrite, TotalTokens float64
					Cost                                              struct{ Total float64 }
				}
			}
			if err := json.Unmarshal(data, &g); err != nil {
				t.Fatal(err)
			}
			wantStatus := "failed"
			if f.completed {
				wantStatus = "completed"
			}
			calls := map[string][2]int{}
			for n, c := range g.ToolCalls {
				calls[n] = [2]int{c.Calls, c.Errors}
			}
			usage := map[string]float64{"input": g.Usage.Input, "output": g.Usage.Output, "cacheRead": g.Usage.CacheRead,
				"cacheWrite": g.Usage.CacheWrite, "totalTokens": g.Usage.TotalTokens, "cost": g.Usage.Cost.Total}
			if len(f.usage) == 0 {
				f.usage = map[string]float64{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": 0}
			}
			for what, pair := range map[string][2]any{
				"status":       {g.Status, wantStatus},
				"reason given": {g.Reason != "", !f.completed},
				"stopReason":   {g.StopReason, f.lastStop},
				"errorMessage": {g.ErrorMessage, f.lastError},
				"sessionId":    {g.SessionID, f.sessionID},
				"truncated":    {g.Truncated, f.truncated},
				"turns":        {g.Turns, f.turns},
				"retries":      {g.Retries, f.retries},
				"compactions":  {g.Compactions, f.compacts},
				"toolCalls":    {calls, f.toolCalls},
				"usage":        {usage, f.usage},
			} {
				if !reflect.DeepEqual(pair[0], pair[1]) {
					t.Errorf("%s: golden %v, the stream says %v", what, pair[0], pair[1])
				}
			}
		})
	}
}

func TestGoldenTextsAgreeWithTheStreams(t *testing.T) {
	for name, full := range referenceStreams(t) {
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl")
		t.Run(stem, func(t *testing.T) {
			f := factsOf(decodeStream(t, full))
			a, err := txtar.ParseFile(filepath.Join("../testdata/golden/text", stem+".txtar"))
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			for _, file := range a.Files {
				sections[file.Name] = string(file.Data)
			}
			want := map[string]string{
				"text":            f.answer,
				"text-thinking":   f.reasoning + f.answer,
				"follow":          f.follow,
				"follow-thinking": f.reasoning + f.follow, // the reference runs think only in their answer
			}
			if !f.completed {
				// A run that did not complete prints no answer, and says why.
				want["text"], want["text-thinking"] = "", ""
				if !strings.HasPrefix(sections["failure"], "failed: ") {
					t.Errorf("failure: %q, want the reason the run failed", sections["failure"])
				}
			} else if sections["failure"] != "" {
				t.Errorf("failure %q for a completed run", sections["failure"])
			}
			for section, w := range want {
				if got, ok := sections[section]; !ok || got != w {
					t.Errorf("%s: golden %q, the stream says %q", section, got, w)
				}
			}
		})
	}
}

// The golden delta form of b_tool_bash is the spec's transformation, done here on decoded
// values: assistant message events gain messageId (1, 2, … from each message_start) right
// after type, updates lose message and partial, toolcall_start gains toolCall {id, name};
// every other line is the reference line byte for byte.
func TestGoldenDeltasAgreeWithTheSpec(t *testing.T) {
	ref, err := os.ReadFile("../testdata/reference/b_tool_bash.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../testdata/golden/b_tool_bash.deltas.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	refLines, goldLines := lines(ref), lines(golden)
	if len(refLines) != len(goldLines) {
		t.Fatalf("%d reference lines, %d golden", len(refLines), len(goldLines))
	}
	id := 0
	changed := 0
	for i, l := range refLines {
		var e refEvent
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		typ := e.str("type")
		assistant := typ == "message_update" || (typ == "message_start" || typ == "message_end") && e.obj("message").str("role") == "assistant"
		if !assistant {
			if !bytes.Equal(goldLines[i], l) {
				t.Errorf("line %d (%s) changed:\n%s", i+1, typ, goldLines[i])
			}
			continue
		}
		changed++
		if typ == "message_start" {
			id++
		}
		if prefix := fmt.Sprintf(`{"type":%q,"messageId":%d,`, typ, id); !bytes.HasPrefix(goldLines[i], []byte(prefix)) {
			t.Errorf("line %d does not start with %s:\n%.120s", i+1, prefix, goldLines[i])
		}
		e["messageId"] = float64(id)
		if typ == "message_update" {
			snapshot := e["message"]
			delete(e, "message")
			ev := e.obj("assistantMessageEvent")
			if p, ok := ev["partial"]; ok {
				snapshot = p
			}
			delete(ev, "partial")
			if ev.str("type") == "toolcall_start" {
				block := snapshot.(map[string]any)["content"].([]any)[int(ev["contentIndex"].(float64))].(map[string]any)
				ev["toolCall"] = map[string]any{"id": block["id"], "name": block["name"]}
			}
		}
		var g refEvent
		if err := json.Unmarshal(goldLines[i], &g); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, e) {
			t.Errorf("line %d:\ngolden %v\n  spec %v", i+1, g, e)
		}
	}
	if changed < 10 || id != 2 {
		t.Errorf("only %d lines of %d messages checked", changed, id)
	}
}
