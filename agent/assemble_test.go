package agent

import (
	"bytes"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// streamOf plays provider events through an assembler, as the loop does, and returns the
// full-form lines and the delta-form lines produced in process by the deltas stage.
func streamOf(t testing.TB, responses ...[]provider.Event) (full, typedDeltas []byte) {
	t.Helper()
	var fullBuf, deltaBuf bytes.Buffer
	fullOut := codec.NewLineWriter(&fullBuf)
	deltaOut := codec.NewLineWriter(&deltaBuf)
	deltaStage := stages.NewDeltas()
	emit := func(e codec.Event) {
		if err := fullOut.WriteLine(stages.EventFrame(e).Line()); err != nil {
			t.Fatal(err)
		}
		if err := deltaStage.Push(stages.EventFrame(e), func(f *stages.Frame) error {
			return f.WriteLine(deltaOut)
		}); err != nil {
			t.Fatal(err)
		}
	}
	emit(&codec.Header{Version: 3, ID: "id", Timestamp: "2026-12-02T00:00:00.000Z", Cwd: "/"})
	for i, events := range responses {
		msg := &codec.AssistantMessage{Content: []codec.Content{}, API: "script", Provider: "script",
			Model: "m", StopReason: codec.StopReasonStop, Timestamp: int64(1000 + i)}
		emit(&codec.MessageStart{Message: msg})
		a := newAssembler(msg, emit)
		for _, e := range events {
			a.handle(e)
		}
		a.finish(nil, false)
		emit(&codec.MessageEnd{Message: msg})
		emit(&codec.TurnEnd{Message: msg, ToolResults: []*codec.ToolResultMessage{}})
	}
	return fullBuf.Bytes(), deltaBuf.Bytes()
}

func filter(t testing.TB, st stages.Stage, in []byte) []byte {
	var out bytes.Buffer
	stats, err := stages.Run([]stages.Input{{Reader: bytes.NewReader(in)}}, codec.NewLineWriter(&out), st, stages.RunOptions{})
	if err != nil || stats.Invalid > 0 {
		t.Fatalf("%v, %d invalid lines", err, stats.Invalid)
	}
	return out.Bytes()
}

func checkRoundTrip(t testing.TB, full, typed []byte) {
	t.Helper()
	raw := filter(t, stages.NewDeltas(), full)
	if !bytes.Equal(raw, typed) {
		t.Fatalf("in-process deltas differ from filter deltas:\n%s\n---\n%s", typed, raw)
	}
	back := filter(t, stages.NewExpand(), raw)
	if !bytes.Equal(back, full) {
		t.Fatalf("expand(deltas(x)) != x:\n%s\n---\n%s", back, full)
	}
	if again := filter(t, stages.NewDeltas(), back); !bytes.Equal(again, raw) {
		t.Fatalf("deltas(expand(y)) != y")
	}
}

func textBlock(block int, kind string, chunks ...string) []provider.Event {
	evs := []provider.Event{{Kind: provider.BlockStart, Block: block, BlockKind: kind}}
	for _, c := range chunks {
		evs = append(evs, provider.Event{Kind: provider.BlockDelta, Block: block, Delta: c})
	}
	return append(evs, provider.Event{Kind: provider.BlockEnd, Block: block})
}

func toolBlock(block int, id, name string, frags ...string) []provider.Event {
	evs := []provider.Event{{Kind: provider.BlockStart, Block: block, BlockKind: "toolCall", ToolCallID: id, ToolName: name}}
	for _, f := range frags {
		evs = append(evs, provider.Event{Kind: provider.BlockDelta, Block: block, Delta: f})
	}
	return append(evs, provider.Event{Kind: provider.BlockEnd, Block: block})
}

func concat(parts ...[]provider.Event) []provider.Event {
	var out []provider.Event
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func done(reason string) provider.Event {
	return provider.Event{Kind: provider.Done, StopReason: reason, HasUsage: true,
		Usage: codec.Usage{Input: 10, Output: 5, TotalTokens: 15, Cost: codec.Cost{Input: 0.00003, Output: 0.000075, Total: 0.000105}}}
}

func TestHandMadeStreamsRoundTrip(t *testing.T) {
	cases := map[string][][]provider.Event{
		"text": {concat([]provider.Event{{Kind: provider.Metadata, ResponseID: "r1"}},
			textBlock(0, "text", "Hel", "lo \"quoted\" \\ back", "\n\tslash / <html> & \u2028 é 😀", ""), []provider.Event{done("stop")})},
		"thinking+text": {concat(textBlock(0, "thinking", "Let me", " think."),
			[]provider.Event{{Kind: provider.BlockEnd, Block: 0, Signature: "sig=="}},
			textBlock(1, "text", "4"), []provider.Event{done("stop")})},
		"two tools": {concat(textBlock(0, "text", "Running."),
			toolBlock(1, "call_1", "bash", `{"comm`, `and": "ls`, ` -la\n"}`),
			toolBlock(2, "call_2", "read", `{"path":"a\u00e9.txt",`, `"offset":1`, `0, "x":[1,{"y":tru`, `e}]}`),
			[]provider.Event{done("toolUse")}),
			concat(textBlock(0, "text", "Done."), []provider.Event{done("stop")})},
		"interleaved blocks": {concat(
			[]provider.Event{
				{Kind: provider.BlockStart, Block: 7, BlockKind: "toolCall", ToolCallID: "a", ToolName: "x"},
				{Kind: provider.BlockStart, Block: 3, BlockKind: "toolCall", ToolCallID: "b", ToolName: "y"},
				{Kind: provider.BlockDelta, Block: 3, Delta: `{"q":`},
				{Kind: provider.BlockDelta, Block: 7, Delta: `{"p":1}`},
				{Kind: provider.BlockDelta, Block: 3, Delta: `2}`},
			}, []provider.Event{done("toolUse")})},
		"no deltas":   {{done("stop")}},
		"bad args":    {concat(toolBlock(0, "c", "bash", `{"command": "ls" oops`), []provider.Event{done("toolUse")})},
		"cut off":     {concat(textBlock(0, "text", "partial"))[:2]},
		"empty block": {concat(textBlock(0, "text"), []provider.Event{done("stop")})},
	}
	for name, responses := range cases {
		t.Run(name, func(t *testing.T) {
			full, typed := streamOf(t, responses...)
			checkRoundTrip(t, full, typed)
		})
	}
}

func TestSnapshotsHoldExactlyTheUpdatesSoFar(t *testing.T) {
	full, _ := streamOf(t, concat(textBlock(0, "text", "a", "b", "c"), []provider.Event{done("stop")}))
	var texts []string
	for _, l := range bytes.Split(bytes.TrimSpace(full), []byte("\n")) {
		if codec.LineType(l) == codec.TypeMessageUpdate {
			texts = append(texts, codec.Lookup(l, "message.content.0.text").Str(l))
		}
	}
	want := []string{"", "a", "ab", "abc", "abc"}
	if len(texts) != len(want) {
		t.Fatalf("snapshots %q", texts)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Fatalf("snapshots %q, want %q", texts, want)
		}
	}
}

// FuzzRoundTrip: whatever text and argument fragments a provider streams, the delta form
// of our stream expands back to it exactly.
func FuzzRoundTrip(f *testing.F) {
	f.Add("hello", " world", `{"a":`, `"b\u00e9"}`)
	f.Add("\x00\x1f\"\\", "\u2028\ud7ff", `{"n":1e`, `5,"l":[nu`)
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, t1, t2, a1, a2 string) {
		full, typed := streamOf(t, concat(
			textBlock(0, "thinking", t2, t1), textBlock(1, "text", t1, t2),
			toolBlock(2, "id"+t1, "name"+t2, a1, a2), []provider.Event{done("toolUse")}))
		checkRoundTrip(t, full, typed)
	})
}
