package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// Who gets a status line: text mode on a terminal, any mode with --verbose, nobody with --quiet.
func TestStatusLineWhen(t *testing.T) {
	for _, c := range []struct {
		flags    StatusFlags
		mode     string
		terminal bool
		want     bool
	}{
		{StatusFlags{}, "text", true, true},
		{StatusFlags{}, "text", false, false},
		{StatusFlags{}, "json", true, false},
		{StatusFlags{Verbose: true}, "json", false, true},
		{StatusFlags{Verbose: true}, "text", false, true},
		{StatusFlags{Quiet: true}, "text", true, false},
	} {
		got := c.flags.statusLine(&IO{Err: &bytes.Buffer{}, StderrIsTerminal: c.terminal}, c.mode, "m") != nil
		if got != c.want {
			t.Errorf("%+v mode %s terminal %v: status line %v, want %v", c.flags, c.mode, c.terminal, got, c.want)
		}
	}
}

// On a terminal the line is rewritten in place, never wider than the terminal's usual 80
// columns, and cleared at the end.
func TestStatusLineLive(t *testing.T) {
	var buf bytes.Buffer
	s := (StatusFlags{}).statusLine(&IO{Err: &buf, StderrIsTerminal: true}, "text", "anthropic/claude")
	long := "go test ./... && " + strings.Repeat("x", 100) + " && echo the end"
	for _, e := range []codec.Event{
		&codec.AgentStart{},
		&codec.TurnStart{},
		&codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextStart}},
		&codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, Delta: "a"}},
		&codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, Delta: "b"}},
		&codec.ToolExecutionStart{ToolName: "bash", Args: []byte(`{"command":"` + long + `"}`)},
		&codec.AutoRetryStart{Attempt: 1, MaxAttempts: 3, DelayMs: 2000, ErrorMessage: "529 overloaded_error: Overloaded"},
		&codec.CompactionStart{Reason: "overflow"},
		&codec.AgentEnd{},
	} {
		s.event(e)
	}
	got := strings.Split(buf.String(), "\r\x1b[K")
	want := []string{"", "calling anthropic/claude", "anthropic/claude: answering", "", "529 overloaded_error: Overloaded, retry 1/3 in 2s",
		"compacting the context (overflow)", ""}
	if len(got) != len(want) {
		t.Fatalf("updates %q, want %d", got, len(want))
	}
	for i, w := range want {
		if i == 3 {
			if !strings.HasPrefix(got[i], "bash: go test ./... && xx") || !strings.HasSuffix(got[i], "xx && echo the end") ||
				len([]rune(got[i])) != liveWidth || !strings.Contains(got[i], "…") {
				t.Errorf("tool line %q: want head and tail in %d columns", got[i], liveWidth)
			}
			continue
		}
		if got[i] != w {
			t.Errorf("update %d = %q, want %q", i, got[i], w)
		}
	}
}
