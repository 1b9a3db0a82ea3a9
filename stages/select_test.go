package stages_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/basecontext/base-context/stages"
)

func selectLines(t testing.TB, in []byte, opts stages.SelectOptions) []byte {
	t.Helper()
	return run(t, stages.NewSelect(opts), in)
}

// want is the select of in computed the slow way, decoding every line with encoding/json.
func wantSelected(t *testing.T, in []byte, keep func(v map[string]any) bool) []byte {
	var b bytes.Buffer
	for _, l := range lines(in) {
		if keep(decode(t, l)) {
			b.Write(l)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func messageRole(v map[string]any) string {
	if m, ok := v["message"].(map[string]any); ok {
		r, _ := m["role"].(string)
		return r
	}
	if v["type"] == "message_update" {
		return "assistant"
	}
	return ""
}

// Every reference stream in both forms, against a decoding implementation: kept lines come
// out byte for byte and in order, the header is kept unless asked not to, and keeping and
// dropping the same types split the stream in two.
func TestSelectOfReferenceStreams(t *testing.T) {
	isMessage := map[any]bool{"message_start": true, "message_update": true, "message_end": true}
	isTool := map[any]bool{"tool_execution_start": true, "tool_execution_update": true, "tool_execution_end": true}
	cases := []struct {
		name string
		opts stages.SelectOptions
		keep func(v map[string]any) bool
	}{
		{"types", stages.SelectOptions{Types: []string{"message_end", "turn_end", "nope"}},
			func(v map[string]any) bool {
				return v["type"] == "session" || v["type"] == "message_end" || v["type"] == "turn_end"
			}},
		{"not", stages.SelectOptions{Types: []string{"message_update", "tool_execution_update"}, Not: true},
			func(v map[string]any) bool {
				return v["type"] != "message_update" && v["type"] != "tool_execution_update"
			}},
		{"prefix", stages.SelectOptions{Types: []string{"tool_execution_*", "auto_retry_*"}, NoHeader: true},
			func(v map[string]any) bool {
				s := v["type"].(string)
				return strings.HasPrefix(s, "tool_execution_") || strings.HasPrefix(s, "auto_retry_")
			}},
		{"role", stages.SelectOptions{Roles: []string{"assistant"}},
			func(v map[string]any) bool { return !isMessage[v["type"]] || messageRole(v) == "assistant" }},
		{"role and types", stages.SelectOptions{Types: []string{"message_start", "message_end"}, Roles: []string{"user", "toolResult"}, NoHeader: true},
			func(v map[string]any) bool {
				r := messageRole(v)
				return (v["type"] == "message_start" || v["type"] == "message_end") && (r == "user" || r == "toolResult")
			}},
		{"tool", stages.SelectOptions{Tools: []string{"bash"}, Types: []string{"tool_execution_*", "turn_end"}},
			func(v map[string]any) bool {
				return v["type"] == "session" || v["type"] == "turn_end" || isTool[v["type"]] && v["toolName"] == "bash"
			}},
		{"no header only", stages.SelectOptions{NoHeader: true},
			func(v map[string]any) bool { return v["type"] != "session" }},
	}
	for name, full := range referenceStreams(t) {
		for form, in := range map[string][]byte{"full": full, "deltas": deltas(t, full)} {
			for _, c := range cases {
				got := selectLines(t, in, c.opts)
				if want := wantSelected(t, in, c.keep); !bytes.Equal(got, want) {
					t.Errorf("%s/%s/%s: %d lines kept, want %d", name, form, c.name, len(lines(got)), len(lines(want)))
				}
			}
			// Keep T and drop T: every line but the header lands on exactly one side.
			types := []string{"message_update", "agent_end"}
			kept := lines(selectLines(t, in, stages.SelectOptions{Types: types, NoHeader: true}))
			dropped := lines(selectLines(t, in, stages.SelectOptions{Types: types, Not: true, NoHeader: true}))
			if all := lines(in); len(all) > 0 && len(kept)+len(dropped) != len(all)-1 {
				t.Errorf("%s/%s: %d kept + %d dropped != %d lines after the header", name, form, len(kept), len(dropped), len(all)-1)
			}
		}
	}
}

func TestSelectKeepsWhatItDoesNotUnderstand(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}`,
		`not json`,
		`{"no":"type"}`,
		`{"type":7}`,
		`{"type":"message_end","message":{"role":"user"}}`,
		`{"type":"custom_thing"}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","delta":"x"}}`,
		`{"type":"message_start","message":null}`,
		`{"type":"tool_execution_start","toolCallId":"1","toolName":"read"}`,
		`{"type":"tool_execution_end","toolCallId":"1"}`,
	}, "\n") + "\n"
	got := selectLines(t, []byte(in), stages.SelectOptions{
		Types: []string{"message_*", "tool_execution_start", "tool_execution_end"}, Roles: []string{"assistant"}, Tools: []string{"read"}})
	want := strings.Join([]string{
		`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}`,
		`not json`,
		`{"no":"type"}`,
		`{"type":7}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","delta":"x"}}`,
		`{"type":"tool_execution_start","toolCallId":"1","toolName":"read"}`,
	}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkSelect keeps almost every line of f_long (its updates), so it measures reading,
// validating and writing; compare BenchmarkValid, the validation alone.
func BenchmarkSelect(b *testing.B) {
	benchStage(b, func() stages.Stage {
		return stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}})
	}, fLong)
}
