package terminal

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/codec"
	"golang.org/x/sys/unix"
)

// On a terminal the line is rewritten in place, never wider than the terminal (one column
// short, so that the cursor does not wrap it), and cleared at the end.
func TestStatusLineLive(t *testing.T) {
	for _, width := range []int{80, 40} {
		var buf bytes.Buffer
		s := New(&buf, Options{Show: true, Live: true, Width: func() int { return width }})
		s.SetModel("anthropic/claude")
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
			s.Event(e)
		}
		got := strings.Split(buf.String(), "\r\x1b[K")
		want := []string{"", "calling anthropic/claude", "anthropic/claude: answering", "", "529 overloaded_error: Overloaded, retry 1/3 in 2s",
			"compacting the context (overflow)", ""}
		if len(got) != len(want) {
			t.Fatalf("width %d: updates %q, want %d", width, got, len(want))
		}
		for i, w := range want {
			if len([]rune(got[i])) >= width {
				t.Errorf("width %d: update %q does not fit", width, got[i])
			}
			if i == 3 {
				if !strings.HasPrefix(got[i], "bash: go te") || !strings.HasSuffix(got[i], "xx && echo the end") ||
					len([]rune(got[i])) != width-1 || !strings.Contains(got[i], "…") {
					t.Errorf("tool line %q: want head and tail in %d columns", got[i], width-1)
				}
				continue
			}
			if w = Fit(w, width-1); got[i] != w {
				t.Errorf("width %d: update %d = %q, want %q", width, i, got[i], w)
			}
		}
	}
}

// A warning written while the line shows clears it first and draws it again after: the
// warning never shares its line. Both are redacted.
func TestStatusLineClearsForStderr(t *testing.T) {
	var buf bytes.Buffer
	redact := func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[REDACTED]") }
	s := New(&buf, Options{Show: true, Live: true, Redact: redact})
	s.Event(&codec.ToolExecutionStart{ToolName: "bash", Args: []byte(`{"command":"echo sk-secret"}`)})
	s.Stderr().Write([]byte("warning: the key sk-secret\n"))
	s.Clear()
	want := "\r\x1b[Kbash: echo [REDACTED]" + "\r\x1b[K" + "warning: the key [REDACTED]\n" + "\r\x1b[Kbash: echo [REDACTED]" + "\r\x1b[K"
	if buf.String() != want {
		t.Errorf("stderr %q, want %q", buf.String(), want)
	}

	// Not on a terminal: one line per change, redacted too.
	buf.Reset()
	s = New(&buf, Options{Show: true, Redact: redact})
	s.Event(&codec.ToolExecutionStart{ToolName: "bash", Args: []byte(`{"command":"echo sk-secret"}`)})
	s.Stderr().Write([]byte("warning: sk-secret\n"))
	if want := "bash: echo [REDACTED]\nwarning: [REDACTED]\n"; buf.String() != want {
		t.Errorf("stderr %q, want %q", buf.String(), want)
	}
}

// stdout on the same terminal: the line is cleared before each write and drawn again only
// once stdout's line is complete, so that the two never share a line.
func TestStatusLineAndStdout(t *testing.T) {
	var screen bytes.Buffer // stderr and stdout on one terminal
	s := New(&screen, Options{Show: true, Live: true})
	out := s.Stdout(&screen)
	s.Show("working")
	out.Write([]byte(`{"type":"agent_start"}` + "\n"))
	out.Write([]byte("part of a line"))
	s.Show("still working") // not drawn in the middle of the line
	out.Write([]byte(" ended\n"))
	s.Clear()
	want := "\r\x1b[Kworking" + "\r\x1b[K" + `{"type":"agent_start"}` + "\n" + "\r\x1b[Kworking" +
		"\r\x1b[K" + "part of a line" + " ended\n" + "\r\x1b[Kstill working" + "\r\x1b[K"
	if screen.String() != want {
		t.Errorf("screen %q\nwant   %q", screen.String(), want)
	}
}

// The answer is written as it arrives; with a redaction, line by line, so that a secret cut
// between two pieces is still found; each text block ends its line.
func TestAnswer(t *testing.T) {
	delta := func(s string) codec.Event {
		return &codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, Delta: s}}
	}
	end := &codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextEnd}}
	var buf bytes.Buffer
	a := NewAnswer(&buf, nil)
	a.Event(delta("Hel"))
	if buf.String() != "Hel" {
		t.Errorf("after the first piece: %q", buf.String())
	}
	a.Event(delta("lo"))
	a.Event(end)
	if err := a.Close(); err != nil || buf.String() != "Hello\n" || !a.Wrote() {
		t.Errorf("answer %q, %v", buf.String(), err)
	}

}

// /dev/null is a character device, not a terminal; a pseudo-terminal is one, with the width
// it is given.
func TestIsAndWidth(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if Is(null) {
		t.Errorf("%s is a terminal", os.DevNull)
	}
	if w := Width(null); w != DefaultWidth {
		t.Errorf("width of %s = %d", os.DevNull, w)
	}
	tty := openPTY(t)
	if !Is(tty) {
		t.Errorf("a pseudo-terminal is not a terminal")
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 52}); err != nil {
		t.Fatal(err)
	}
	if w := Width(tty); w != 52 {
		t.Errorf("width %d, want 52", w)
	}
}

// openPTY opens a pseudo-terminal and returns its terminal side.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip("no pseudo-terminals here:", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// While the model sends nothing the line says for how long, and the bound that cuts it; a
// piece of the answer, or a tool, ends the wait shown. In a log it is a line per ten seconds.
func TestStatusLineShowsTheModelsSilence(t *testing.T) {
	var buf bytes.Buffer
	s := &Status{w: &buf, opts: Options{Show: true, Live: true, IdleTimeout: 90 * time.Second}}
	s.SetModel("m")
	s.Event(&codec.TurnStart{})
	start := time.Now()
	s.Tick(start.Add(time.Second)) // the ordinary pace of a stream: not shown
	s.Tick(start.Add(12 * time.Second))
	s.Event(&codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, Delta: "a"}})
	s.Event(&codec.ToolExecutionStart{ToolName: "bash", Args: []byte(`{"command":"sleep 60"}`)})
	s.Tick(start.Add(60 * time.Second)) // a tool runs: no wait on the model
	got := strings.Split(buf.String(), "\r\x1b[K")
	want := []string{"", "calling m", "calling m, waiting 12s (cut at 1m30s of silence)", "calling m", "bash: sleep 60"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("live updates %q, want %q", got, want)
	}

	buf.Reset()
	s = &Status{w: &buf, opts: Options{Show: true, IdleTimeout: time.Minute}}
	s.SetModel("m")
	s.Event(&codec.TurnStart{})
	start = time.Now()
	for _, at := range []time.Duration{5, 12, 15, 21, 25} {
		s.Tick(start.Add(at * time.Second))
	}
	if want := "calling m\ncalling m, waiting 12s (cut at 1m0s of silence)\ncalling m, waiting 21s (cut at 1m0s of silence)\n"; buf.String() != want {
		t.Errorf("log lines %q, want %q", buf.String(), want)
	}
}
