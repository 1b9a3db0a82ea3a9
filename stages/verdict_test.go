package stages_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/basecontext/base-context/stages"
)

var updateVerdictGolden = flag.Bool("update-verdict-golden", false, "rewrite testdata/golden/verdict from the verdict sink's output (review them!)")

func verdict(t testing.TB, in []byte, opts stages.VerdictOptions) (line []byte, s stages.VerdictSummary) {
	t.Helper()
	v, out := consume(t, func(w io.Writer) *stages.Verdict { return stages.NewVerdict(w, opts) }, in)
	return out, v.Summary()
}

// TestVerdictOfReferenceStreams: the verdict on every reference stream is its golden
// summary, the same for the full and the delta form. The runs that ended in error fail,
// although the original exited 0.
func TestVerdictOfReferenceStreams(t *testing.T) {
	wantStatus := map[string]string{
		"d2_error_final.jsonl": stages.VerdictFailed, "d4_error_400.jsonl": stages.VerdictFailed,
		"e1_unknown_model.jsonl": stages.VerdictFailed, "e3_unknown_provider.jsonl": stages.VerdictFailed,
	}
	for name, full := range referenceStreams(t) {
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("../testdata/golden/verdict", strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl")+".json")
			out, s := verdict(t, full, stages.VerdictOptions{})
			if *updateVerdictGolden {
				os.WriteFile(golden, out, 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("full form:\n%s\nwant\n%s", out, want)
			}
			if deltaOut, _ := verdict(t, deltas(t, full), stages.VerdictOptions{}); !bytes.Equal(deltaOut, out) {
				t.Errorf("delta form:\n%s\nfull form:\n%s", deltaOut, out)
			}
			status := wantStatus[name]
			if status == "" {
				status = stages.VerdictCompleted
			}
			if s.Status != status {
				t.Errorf("status %q, want %q (%s)", s.Status, status, s.Reason)
			}
			var decoded map[string]any
			if err := json.Unmarshal(out, &decoded); err != nil || decoded["status"] != status {
				t.Errorf("summary line %s: %v", out, err)
			}
		})
	}
}

// Streams for the verdict rules, built from a few lines.
const verdictHeader = `{"type":"session","version":3,"id":"s-1","timestamp":"2026-12-02T14:02:42.971Z","cwd":"/w"}`

func assistant(stop, errorMessage string, cost float64) string {
	m := map[string]any{"role": "assistant", "content": []any{}, "api": "openai-completions", "provider": "p", "model": "m",
		"usage": map[string]any{"input": 10, "output": 5, "cacheRead": 1, "cacheWrite": 2, "totalTokens": 18,
			"cost": map[string]any{"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}},
		"stopReason": stop, "timestamp": 1}
	if errorMessage != "" {
		m["errorMessage"] = errorMessage
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// answer is one agent run whose single turn ends in message (no tools).
func answer(message string) []string {
	return []string{`{"type":"agent_start"}`, `{"type":"turn_start"}`,
		`{"type":"message_start","message":` + message + `}`, `{"type":"message_end","message":` + message + `}`,
		`{"type":"turn_end","message":` + message + `,"toolResults":[]}`, `{"type":"agent_end","messages":[` + message + `]}`}
}

func toolRun(id, name string, isError bool) []string {
	e := "false"
	if isError {
		e = "true"
	}
	return []string{`{"type":"tool_execution_start","toolCallId":"` + id + `","toolName":"` + name + `","args":{}}`,
		`{"type":"tool_execution_end","toolCallId":"` + id + `","toolName":"` + name + `","result":{"content":[]},"isError":` + e + `}`}
}

func streamOf(parts ...[]string) []byte {
	var b strings.Builder
	for _, p := range parts {
		for _, l := range p {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

func lit(lines ...string) []string { return lines }

func TestVerdictRules(t *testing.T) {
	ok, failed := assistant("stop", "", 0.1), assistant("error", "500 boom", 0.2)
	toolUse := assistant("toolUse", "", 0)
	hdr := lit(verdictHeader)
	retryStart := lit(`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"500 boom"}`)
	// A turn that ends in tool calls, their results, and agent_end with no turn after.
	stoppedAfterTools := lit(`{"type":"agent_start"}`, `{"type":"turn_start"}`,
		`{"type":"message_start","message":`+toolUse+`}`, `{"type":"message_end","message":`+toolUse+`}`,
		toolRun("c1", "bash", false)[0], toolRun("c1", "bash", false)[1],
		`{"type":"turn_end","message":`+toolUse+`,"toolResults":[]}`, `{"type":"agent_end","messages":[]}`)

	for _, tc := range []struct {
		name     string
		in       []byte
		opts     stages.VerdictOptions
		status   string
		reason   string // a part of it
		truncate bool
	}{
		{"completed", streamOf(hdr, answer(ok)), stages.VerdictOptions{}, stages.VerdictCompleted, "", false},
		{"retry recovered", streamOf(hdr, answer(failed), retryStart, answer(ok),
			lit(`{"type":"auto_retry_end","success":true,"attempt":1}`)), stages.VerdictOptions{}, stages.VerdictCompleted, "", false},
		{"retries exhausted", streamOf(hdr, answer(failed), retryStart, answer(failed),
			lit(`{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"500 boom"}`)), stages.VerdictOptions{}, stages.VerdictFailed, "the run ended in error: 500 boom", false},
		{"a later prompt does not recover an earlier failure", streamOf(hdr, answer(failed), answer(ok)), stages.VerdictOptions{},
			stages.VerdictFailed, "the run ended in error: 500 boom", false},
		{"aborted", streamOf(hdr, answer(assistant("aborted", "Request was aborted", 0))), stages.VerdictOptions{},
			stages.VerdictFailed, "the run was aborted: Request was aborted", false},
		{"cut inside a run", streamOf(hdr, answer(ok)[:4]), stages.VerdictOptions{}, stages.VerdictFailed, "inside an agent run", true},
		{"cut inside a message", streamOf(hdr, answer(ok)[:3]), stages.VerdictOptions{}, stages.VerdictFailed, "inside an agent run", true},
		{"cut before a retry", streamOf(hdr, answer(failed), retryStart), stages.VerdictOptions{}, stages.VerdictFailed, "before the retry ran", true},
		{"cut while a tool ran", streamOf(hdr, answer(ok), toolRun("g", "gate", false)[:1]), stages.VerdictOptions{}, stages.VerdictFailed, "while a tool was running", true},
		{"header only", streamOf(hdr), stages.VerdictOptions{}, stages.VerdictFailed, "holds no agent run", true},
		// docs/stream.md's exit table counts a terminal toolUse as completed; only the run's
		// stderr can say that a limit stopped it there.
		{"terminal toolUse", streamOf(hdr, stoppedAfterTools), stages.VerdictOptions{}, stages.VerdictCompleted, "", false},
		{"terminal toolUse, limit on stderr", streamOf(hdr, stoppedAfterTools), stages.VerdictOptions{RunError: func() string { return "max-turns reached (2/2)" }},
			stages.VerdictLimit, "max-turns reached (2/2)", false},
		{"queued prompts left", streamOf(hdr, answer(ok),
			lit(`{"type":"session_action_update","actions":{"queuedCount":1,"steering":[],"followUps":["go on"]}}`)),
			stages.VerdictOptions{}, stages.VerdictLimit, "1 queued prompt(s) never ran", false},
		{"queue emptied", streamOf(hdr, lit(`{"type":"session_action_update","actions":{"queuedCount":1,"steering":[],"followUps":["b"]}}`),
			answer(ok), answer(ok), lit(`{"type":"session_action_update","actions":{"queuedCount":0,"steering":[],"followUps":[]}}`)),
			stages.VerdictOptions{}, stages.VerdictCompleted, "", false},
		{"limit on stderr", streamOf(hdr, answer(ok)), stages.VerdictOptions{RunError: func() string { return "max-continuations reached (3/3)" }},
			stages.VerdictLimit, "max-continuations reached (3/3)", false},
		{"interrupted", streamOf(hdr, answer(assistant("aborted", "aborted", 0))), stages.VerdictOptions{RunError: func() string { return "interrupted" }},
			stages.VerdictInterrupted, "SIGINT", false},
		{"terminated", streamOf(hdr, stoppedAfterTools), stages.VerdictOptions{RunError: func() string { return "terminated" }},
			stages.VerdictTerminated, "SIGTERM", false},
		{"hung up", streamOf(hdr, answer(assistant("aborted", "aborted", 0))), stages.VerdictOptions{RunError: func() string { return "hangup" }},
			stages.VerdictHangup, "SIGHUP", false},
		{"another error on stderr", streamOf(hdr, answer(ok)), stages.VerdictOptions{RunError: func() string { return "cannot write the session" }},
			stages.VerdictFailed, "cannot write the session", false},
		{"gates passed", streamOf(hdr, answer(ok), toolRun("g1", "gate", false), toolRun("g2", "gate", false)), stages.VerdictOptions{},
			stages.VerdictCompleted, "", false},
		{"last gate failed", streamOf(hdr, answer(ok), toolRun("g1", "gate", false), toolRun("g2", "gate", true)), stages.VerdictOptions{},
			stages.VerdictGate, "a gate failed", false},
		{"gate failed, fixed, passed", streamOf(hdr, answer(ok), toolRun("g1", "gate", true), answer(ok), toolRun("g2", "gate", false)),
			stages.VerdictOptions{}, stages.VerdictCompleted, "", false},
		{"gate failed, then no gate ran", streamOf(hdr, answer(ok), toolRun("g1", "gate", true), answer(ok)), stages.VerdictOptions{},
			stages.VerdictGate, "no gate ran", false},
		{"gated run that ended in error", streamOf(hdr, answer(failed)), stages.VerdictOptions{Gated: true}, stages.VerdictGate, "no gate ran", false},
		{"gated run without gates", streamOf(hdr, answer(ok)), stages.VerdictOptions{Gated: true}, stages.VerdictGate, "no gate ran", false},
		{"compaction failed", streamOf(hdr, answer(ok), lit(`{"type":"compaction_start","reason":"threshold"}`,
			`{"type":"compaction_end","reason":"threshold","aborted":false,"willRetry":false,"errorMessage":"summary failed"}`)),
			stages.VerdictOptions{}, stages.VerdictFailed, "compaction failed: summary failed", false},
		{"overflow compacted and retried", streamOf(hdr, answer(assistant("error", "context length exceeded", 0)),
			lit(`{"type":"compaction_start","reason":"overflow"}`,
				`{"type":"compaction_end","reason":"overflow","result":{"summary":"s","firstKeptEntryId":"e","tokensBefore":9},"aborted":false,"willRetry":true}`),
			answer(ok)), stages.VerdictOptions{}, stages.VerdictCompleted, "", false},
		{"manual compaction only", streamOf(hdr, lit(`{"type":"compaction_start","reason":"manual"}`,
			`{"type":"compaction_end","reason":"manual","result":{"summary":"s","firstKeptEntryId":"e","tokensBefore":9},"aborted":false,"willRetry":false}`)),
			stages.VerdictOptions{}, stages.VerdictCompleted, "", false},
		{"cut during a compaction", streamOf(hdr, answer(ok), lit(`{"type":"compaction_start","reason":"manual"}`)),
			stages.VerdictOptions{}, stages.VerdictFailed, "during a compaction", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := verdict(t, tc.in, tc.opts)
			if s.Status != tc.status || !strings.Contains(s.Reason, tc.reason) || (tc.reason == "") != (s.Reason == "") {
				t.Errorf("status %q, reason %q; want %q, reason containing %q", s.Status, s.Reason, tc.status, tc.reason)
			}
			if s.Truncated != tc.truncate {
				t.Errorf("truncated %v, want %v", s.Truncated, tc.truncate)
			}
			// The delta form gives the same verdict.
			if _, d := verdict(t, deltas(t, tc.in), tc.opts); d.Status != s.Status || d.Reason != s.Reason {
				t.Errorf("delta form: %q %q", d.Status, d.Reason)
			}
		})
	}
}

func TestVerdictSummaryCounts(t *testing.T) {
	in := streamOf(lit(verdictHeader), answer(assistant("error", "500 boom", 0.1)),
		lit(`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"500 boom"}`),
		answer(assistant("stop", "", 0.2)), toolRun("c1", "bash", true), toolRun("c2", "read", false), toolRun("c3", "bash", false),
		lit(`{"type":"compaction_start","reason":"manual"}`,
			`{"type":"compaction_end","reason":"manual","result":{"summary":"s","firstKeptEntryId":"e","tokensBefore":9},"aborted":false,"willRetry":false}`,
			`{"type":"auto_retry_end","success":true,"attempt":1}`))
	out, _ := verdict(t, in, stages.VerdictOptions{})
	want := `{"status":"completed","stopReason":"stop","sessionId":"s-1","truncated":false,"turns":2,` +
		`"toolCalls":{"bash":{"calls":2,"errors":1},"read":{"calls":1,"errors":0}},"retries":1,"compactions":1,` +
		`"usage":{"input":20,"output":10,"cacheRead":2,"cacheWrite":4,"totalTokens":36,"cost":{"input":0.3,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.3}}}` + "\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// Lines that are not JSON objects do not stop the verdict (the command reports them).
func TestVerdictSkipsInvalidLines(t *testing.T) {
	in := streamOf(lit(verdictHeader, "not json"), answer(assistant("stop", "", 0)), lit("[1]"))
	if _, s := verdict(t, in, stages.VerdictOptions{}); s.Status != stages.VerdictCompleted {
		t.Errorf("status %q (%s)", s.Status, s.Reason)
	}
}

func BenchmarkVerdict(b *testing.B) {
	benchRun(b, filter{sink: func(w io.Writer) stages.Sink { return stages.NewVerdict(w, stages.VerdictOptions{}) }}.run, fLong)
}

// The sandbox's refusals are counted per tool: write's whole error, and bash's note after its
// output; a policy refusal stays "refused", and an error without either counts only as one.
func TestVerdictCountsSandboxRefusals(t *testing.T) {
	end := func(id, tool, text string) string {
		return `{"type":"tool_execution_end","toolCallId":"` + id + `","toolName":"` + tool +
			`","result":{"content":[{"type":"text","text":` + strconv.Quote(text) + `}]},"isError":true}`
	}
	in := streamOf(lit(verdictHeader), answer(assistant("stop", "", 0)), lit(
		end("w1", "write", "Permission denied (sandbox: workspace-write): /etc/passwd"),
		end("b1", "bash", "touch: cannot touch '/x': Permission denied\n\nPermission denied (sandbox: read-only): the command was refused by the sandbox\n\nCommand exited with code 1"),
		end("b2", "bash", "Permission denied: bash(rm -rf build) by rule --deny 'bash(rm *)'"),
		end("b3", "bash", "boom\n\nCommand exited with code 1")))
	out, _ := verdict(t, in, stages.VerdictOptions{})
	if want := `"toolCalls":{"write":{"calls":1,"errors":1,"sandboxed":1},"bash":{"calls":3,"errors":3,"refused":1,"sandboxed":1}}`; !strings.Contains(string(out), want) {
		t.Errorf("got\n%s\nwant %s", out, want)
	}
}
