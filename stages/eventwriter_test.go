package stages

import (
	"bytes"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// An agent's events reach the output only when the agent flushes (after a provider chunk),
// and what the stage holds back is written at Close.
func TestEventWriterWritesAtFlushAndClose(t *testing.T) {
	var out bytes.Buffer
	w := NewEventWriter(NewHeader(HeaderOptions{Header: codec.Header{ID: "s1"}}), &out)
	if err := w.Event(&codec.AgentStart{}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("written before Flush: %q", out.String())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 2 {
		t.Fatalf("after Flush: %d lines, want the header and agent_start: %q", lines, out.String())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var none *EventWriter
	if none.Event(&codec.AgentStart{}) != nil || none.Flush() != nil || none.Close() != nil {
		t.Error("a nil EventWriter failed")
	}
}
