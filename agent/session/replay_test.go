package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// replayed replays l in the full form (the delta form expanded) and returns the lines.
func replayed(t *testing.T, l *Loaded, full bool) [][]byte {
	t.Helper()
	var lines [][]byte
	var chain []stages.Stage
	if full {
		chain = append(chain, stages.NewExpand())
	}
	st := stages.Chain(chain...)
	write := func(f *stages.Frame) error {
		lines = append(lines, append([]byte(nil), f.Line()...))
		return nil
	}
	if err := l.Replay(func(e codec.Event) error { return st.Push(stages.EventFrame(e), write) }); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(write); err != nil {
		t.Fatal(err)
	}
	return lines
}

// shape is a stream's event types, a run of message_update as one, tool progress left out
// (a session does not record it), and the role of each message event.
func shape(lines [][]byte) []string {
	var out []string
	for _, l := range lines {
		typ := codec.LineType(l)
		switch typ {
		case codec.TypeToolExecutionUpdate:
			continue
		case codec.TypeMessageUpdate:
			if len(out) > 0 && out[len(out)-1] == typ {
				continue
			}
		case codec.TypeMessageStart, codec.TypeMessageEnd:
			typ += " " + codec.Lookup(l, "message.role").Str(l)
		}
		out = append(out, typ)
	}
	return out
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// The replay of a reference session has the shape of the reference stream of the same run,
// its snapshots end as its messages do, and its messages are the session's.
func TestReplayReference(t *testing.T) {
	for _, name := range []string{"a_text", "b_tool_bash", "b2_tools_parallel", "b3_tool_anthropic", "c_thinking_anthropic", "c2_thinking_openai"} {
		t.Run(name, func(t *testing.T) {
			l, err := Read(filepath.Join(referenceStreams, name+".session.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			stream, err := os.ReadFile(filepath.Join(referenceStreams, name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			ref := bytes.Split(bytes.TrimSuffix(stream, []byte("\n")), []byte("\n"))
			got := replayed(t, l, true)
			if g, w := shape(got), shape(ref); !reflect.DeepEqual(g, w) {
				t.Fatalf("shape:\n got %v\nwant %v", g, w)
			}
			if !bytes.Equal(got[0], []byte(strings.SplitN(string(mustRead(t, filepath.Join(referenceStreams, name+".session.jsonl"))), "\n", 2)[0])) {
				t.Errorf("header %s", got[0])
			}
			var lastSnapshot []byte
			i := 0
			for _, line := range got {
				switch codec.LineType(line) {
				case codec.TypeMessageUpdate:
					lastSnapshot = codec.Find(line, "message").Raw(line)
					partial := codec.Lookup(line, "assistantMessageEvent.partial")
					if !partial.Exists() || !bytes.Equal(partial.Raw(line), lastSnapshot) {
						t.Errorf("partial and message differ: %s", line)
					}
				case codec.TypeMessageEnd:
					msg := codec.Find(line, "message").Raw(line)
					for l.Chain[i].Type != TypeMessage {
						i++
					}
					if want := codec.Find(l.Chain[i].Raw, "message").Raw(l.Chain[i].Raw); !jsonEqual(t, msg, want) {
						t.Errorf("message_end %d:\n got %s\nwant %s", i, msg, want)
					}
					i++
					if codec.Find(msg, "role").Str(msg) == "assistant" && lastSnapshot != nil {
						// Signatures land in the final message only, as the agent streams them.
						if !jsonEqual(t, unsigned(codec.Find(lastSnapshot, "content").Raw(lastSnapshot)), unsigned(codec.Find(msg, "content").Raw(msg))) {
							t.Errorf("the last snapshot's content is not the message's:\n%s\n%s", lastSnapshot, msg)
						}
						lastSnapshot = nil
					}
				}
			}
		})
	}
}

// unsigned is a content array without the blocks' signatures.
func unsigned(content []byte) []byte {
	var blocks []map[string]any
	json.Unmarshal(content, &blocks)
	for _, b := range blocks {
		delete(b, "textSignature")
		delete(b, "thinkingSignature")
	}
	out, _ := json.Marshal(blocks)
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The delta form of the replay is what the deltas stage makes of its full form.
func TestReplayDeltaForm(t *testing.T) {
	l, err := Read(filepath.Join(referenceStreams, "b_tool_bash.session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	full := replayed(t, l, true)
	deltas := replayed(t, l, false)
	st := stages.NewDeltas()
	var again [][]byte
	for i, line := range full {
		st.Push(stages.LineFrame(line, i+1), func(f *stages.Frame) error {
			again = append(again, append([]byte(nil), f.Line()...))
			return nil
		})
	}
	if len(again) != len(deltas) {
		t.Fatalf("%d lines, want %d", len(again), len(deltas))
	}
	for i := range again {
		if !bytes.Equal(again[i], deltas[i]) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, again[i], deltas[i])
		}
	}
}

// A run cut short (killed while the answer streamed) replays up to its last saved
// message, with no invented end; an aborted run ends its cycle.
func TestReplayCutAndAborted(t *testing.T) {
	s := NewMemory()
	user := &codec.UserMessage{Text: "hi", Timestamp: 1}
	s.AppendMessage(user)
	l := &Loaded{Header: codec.Header{Version: 3, ID: "x", Timestamp: "t", Cwd: "/"}}
	for _, e := range s.Entries() {
		e := e
		l.Chain = append(l.Chain, &e)
		l.Messages = append(l.Messages, e.Message)
	}
	if got, want := shape(replayed(t, l, true)), []string{"session", "agent_start", "turn_start", "message_start user", "message_end user"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cut run: %v, want %v", got, want)
	}
	aborted := &codec.AssistantMessage{Content: []codec.Content{&codec.TextContent{Text: "par"}}, API: "a", Provider: "p", Model: "m",
		StopReason: codec.StopReasonAborted, ErrorMessage: "aborted", Timestamp: 2}
	l.Messages = append(l.Messages, aborted, &codec.UserMessage{Text: "again", Timestamp: 3})
	want := []string{"session", "agent_start", "turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_update", "message_end assistant", "turn_end", "agent_end",
		"agent_start", "turn_start", "message_start user", "message_end user"}
	if got := shape(replayed(t, l, true)); !reflect.DeepEqual(got, want) {
		t.Errorf("aborted run:\n got %v\nwant %v", got, want)
	}
}

// A steering message joins the cycle it was delivered in (a turn of its own after the
// tools' turn); a follow-up opens a new cycle, as in the live stream.
func TestReplaySteeringAndFollowUp(t *testing.T) {
	user := func(text string) codec.Message { return &codec.UserMessage{Text: text, Timestamp: 1} }
	answer := func(text string) *codec.AssistantMessage {
		return &codec.AssistantMessage{Content: []codec.Content{&codec.TextContent{Text: text}}, API: "a", Provider: "p", Model: "m",
			StopReason: codec.StopReasonStop, Timestamp: 2}
	}
	call := answer("Let me look.")
	call.Content = append(call.Content, &codec.ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)})
	call.StopReason = codec.StopReasonToolUse
	result := &codec.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: []codec.Content{&codec.TextContent{Text: "a\n"}}, Timestamp: 3}
	l := &Loaded{Header: codec.Header{Version: 3, ID: "x", Timestamp: "t", Cwd: "/"},
		Messages: []codec.Message{user("hi"), call, result, user("steer"), answer("steered"), user("follow"), answer("followed")}}
	want := []string{"session", "agent_start", "turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_update", "message_end assistant",
		"tool_execution_start", "tool_execution_end", "message_start toolResult", "message_end toolResult", "turn_end",
		"turn_start", "message_start user", "message_end user", "message_start assistant", "message_update", "message_end assistant", "turn_end", "agent_end",
		"agent_start", "turn_start", "message_start user", "message_end user", "message_start assistant", "message_update", "message_end assistant", "turn_end", "agent_end"}
	lines := replayed(t, l, true)
	if got := shape(lines); !reflect.DeepEqual(got, want) {
		t.Fatalf("shape:\n got %v\nwant %v", got, want)
	}
	// Each agent_end holds the messages of its own cycle.
	var ends []int
	for _, line := range lines {
		if codec.LineType(line) == codec.TypeAgentEnd {
			n := 0
			for codec.Lookup(line, "messages."+strconv.Itoa(n)).Exists() {
				n++
			}
			ends = append(ends, n)
		}
	}
	if !reflect.DeepEqual(ends, []int{5, 2}) {
		t.Errorf("agent_end message counts %v, want [5 2]", ends)
	}
}
