package terminal

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/codec"
)

// Status is the status line of a run on stderr (what the run is doing: a model call, a tool,
// a retry, a compaction), and the one writer of stderr while the run lasts: every text
// written there goes through it, so that it is redacted and never shares a line with the
// status line.
//
// On a terminal (Live) the line is rewritten in place, fitted to the terminal's width, and
// cleared before anything else is written to the terminal; elsewhere it is one line per
// change, so that logs (and tests) can read it.
type Status struct {
	opts Options

	mu      sync.Mutex
	w       io.Writer
	model   string
	text    string // what the run is doing now; "" nothing
	onShow  bool   // text is on the screen (Live)
	midLine bool   // stdout, on the same terminal, has written part of a line

	// The model's silence: since when the run waits on it (zero: it does not), the line
	// without the wait, and the last ten seconds of it written as a line (not Live).
	waitFrom   time.Time
	base       string
	waitStep   time.Duration
	waitOnLine bool // the line shows the wait
	stop       chan struct{}
}

// Options say how a Status writes.
type Options struct {
	Show   bool                // show the status text; false: stderr's lines only, redacted
	Live   bool                // stderr is a terminal: one line rewritten in place
	Width  func() int          // the terminal's columns, asked at each change (the window may be resized); nil: DefaultWidth
	Redact func(string) string // removes secrets from every text written to stderr; nil: none
	// Retries, when the text is not shown: each retry is still a line, so that a run that
	// waits to try again is never silent.
	Retries bool
	// IdleTimeout, when > 0: while the model sends nothing the line says for how long, and
	// the bound (--stream-idle-timeout) at which the response counts as cut.
	IdleTimeout time.Duration
}

// waitShown is the silence of the model after which the line shows it: shorter ones are
// the ordinary pace of a stream.
const waitShown = 2 * time.Second

// New returns the status line of a run writing to stderr w. With IdleTimeout it counts the
// model's silences until Close.
func New(w io.Writer, opts Options) *Status {
	s := &Status{w: w, opts: opts}
	if opts.Show && opts.IdleTimeout > 0 {
		s.stop = make(chan struct{})
		go s.countWaits(s.stop)
	}
	return s
}

// Close stops counting the model's silences.
func (s *Status) Close() {
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
}

func (s *Status) countWaits(stop <-chan struct{}) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case now := <-ticker.C:
			s.Tick(now)
		case <-stop:
			return
		}
	}
}

// Tick shows how long the model has been silent at now, when it is past waitShown: on a
// terminal after the line's text, elsewhere as a line every ten seconds of it.
func (s *Status) Tick(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waitFrom.IsZero() || s.base == "" {
		return
	}
	wait := now.Sub(s.waitFrom).Truncate(time.Second)
	if wait < waitShown {
		return
	}
	if !s.opts.Live {
		step := wait.Truncate(10 * time.Second)
		if step == 0 || step == s.waitStep {
			return
		}
		s.waitStep = step
	}
	s.write(fmt.Sprintf("%s, waiting %s (cut at %s of silence)", s.base, wait, s.opts.IdleTimeout))
	s.waitOnLine = true
}

// waiting notes whether the run waits on the model after e: from the start of a turn or of
// an answer, and after each piece of it, until the answer ends or something else runs.
func (s *Status) waiting(e codec.Event) {
	switch e.(type) {
	case *codec.TurnStart, *codec.MessageStart, *codec.MessageUpdate:
		if m, ok := e.(*codec.MessageStart); ok {
			if _, answer := m.Message.(*codec.AssistantMessage); !answer {
				return
			}
		}
		s.waitFrom, s.waitStep = time.Now(), 0
	case *codec.MessageEnd, *codec.TurnEnd, *codec.ToolExecutionStart, *codec.AutoRetryStart,
		*codec.CompactionStart, *codec.AgentEnd:
		s.waitFrom = time.Time{}
	}
}

// SetModel names the model the status line shows ("calling provider/id").
func (s *Status) SetModel(model string) {
	s.mu.Lock()
	s.model = model
	s.mu.Unlock()
}

// Event updates the line from one event of the run's stream.
func (s *Status) Event(e codec.Event) {
	if !s.opts.Show {
		if _, retry := e.(*codec.AutoRetryStart); retry && s.opts.Retries {
			s.mu.Lock()
			model := s.model
			s.mu.Unlock()
			text, _ := Describe(e, model)
			s.Stderr().Write([]byte(text + "\n"))
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting(e)
	if text, ok := Describe(e, s.model); ok {
		s.set(text)
	} else if s.waitOnLine && !s.waitFrom.IsZero() {
		s.write(s.base) // a piece of the answer ends the wait shown
	}
}

// Show sets the line to text ("" clears it), when the line is shown.
func (s *Status) Show(text string) {
	if !s.opts.Show && text != "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set(text)
}

// Clear removes the line, before the answer or an error is printed.
func (s *Status) Clear() { s.Show("") }

func (s *Status) set(text string) {
	s.base = text
	s.write(text)
}

// write shows text, the line's text or that with the wait.
func (s *Status) write(text string) {
	s.waitOnLine = false
	text = s.redact(text)
	if s.opts.Live {
		text = Fit(text, s.width()-1) // the last column free: a cursor past it wraps the line
	}
	if text == s.text {
		return
	}
	s.text = text
	switch {
	case s.opts.Live:
		s.draw()
	case text != "":
		fmt.Fprintln(s.w, text)
	}
}

// draw shows the line as it is now; what it showed before is cleared (\x1b[K clears what a
// longer line left). While stdout's line is incomplete the line waits: drawn there, it would
// be in the middle of the answer.
func (s *Status) draw() {
	if !s.opts.Live || s.midLine || (s.text == "" && !s.onShow) {
		return
	}
	fmt.Fprintf(s.w, "\r\x1b[K%s", s.text)
	s.onShow = s.text != ""
}

// erase removes the line from the screen, keeping it to draw again.
func (s *Status) erase() {
	if s.onShow {
		io.WriteString(s.w, "\r\x1b[K")
		s.onShow = false
	}
}

func (s *Status) width() int {
	if s.opts.Width != nil {
		if w := s.opts.Width(); w > 0 {
			return w
		}
	}
	return DefaultWidth
}

func (s *Status) redact(text string) string {
	if s.opts.Redact == nil {
		return text
	}
	return s.opts.Redact(text)
}

// Stderr is the writer of every other text of the run for stderr (warnings, notices): the
// line is cleared first and drawn again after, and the text is redacted. A write is taken
// whole: writers write whole lines.
func (s *Status) Stderr() io.Writer { return stderrWriter{s} }

type stderrWriter struct{ s *Status }

func (w stderrWriter) Write(p []byte) (int, error) {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.erase()
	if _, err := io.WriteString(s.w, s.redact(string(p))); err != nil {
		return 0, err
	}
	s.draw()
	return len(p), nil
}

// Stdout wraps out, a stdout on the same terminal as stderr, so that what it writes never
// shares a line with the status line: the line is cleared before each write, and drawn again
// (below) once stdout's line is complete.
func (s *Status) Stdout(out io.Writer) io.Writer {
	if !s.opts.Live {
		return out
	}
	return stdoutWriter{s, out}
}

type stdoutWriter struct {
	s   *Status
	out io.Writer
}

func (w stdoutWriter) Write(p []byte) (int, error) {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.erase()
	n, err := w.out.Write(p)
	if n > 0 {
		s.midLine = p[n-1] != '\n'
	}
	s.draw()
	return n, err
}

// Describe is what the run is doing after e, model being the run's model; ok is false when
// e changes nothing.
func Describe(e codec.Event, model string) (text string, ok bool) {
	switch e := e.(type) {
	case *codec.TurnStart:
		return "calling " + model, true
	case *codec.MessageUpdate:
		if e.Update == nil {
			return "", false
		}
		switch e.Update.Type {
		case codec.UpdateThinkingStart:
			return model + ": thinking", true
		case codec.UpdateTextStart:
			return model + ": answering", true
		case codec.UpdateToolCallStart:
			name := ""
			if e.Update.ToolCall != nil {
				name = e.Update.ToolCall.Name
			} else if e.Message != nil && int(e.Update.ContentIndex) < len(e.Message.Content) {
				if tc, ok := e.Message.Content[e.Update.ContentIndex].(*codec.ToolCall); ok {
					name = tc.Name
				}
			}
			return strings.TrimSuffix(model+": calling a tool "+name, " "), true
		}
	case *codec.ToolExecutionStart:
		return e.ToolName + ": " + toolSummary(e.Args), true
	case *codec.AutoRetryStart:
		return fmt.Sprintf("%s, retry %d/%d in %s", firstLine(e.ErrorMessage), e.Attempt, e.MaxAttempts,
			time.Duration(e.DelayMs)*time.Millisecond), true
	case *codec.CompactionStart:
		return "compacting the context (" + e.Reason + ")", true
	case *codec.MCPServerStatus:
		if e.Error != "" {
			return fmt.Sprintf("MCP server %s: %s: %s", e.Name, e.Status, firstLine(e.Error)), true
		}
		return fmt.Sprintf("MCP server %s: %s (%d tools)", e.Name, e.Status, e.Tools), true
	case *codec.AgentEnd:
		return "", true
	}
	return "", false
}

// toolSummary is the argument that says what a tool call does: the command, path or
// pattern, else the arguments as they are.
func toolSummary(args []byte) string {
	for _, key := range []string{"command", "path", "pattern"} {
		if v := codec.Find(args, key).Str(args); v != "" {
			return firstLine(v)
		}
	}
	return firstLine(string(args))
}

func firstLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if cut {
		s += " …"
	}
	return s
}

// Fit fits msg in width characters, keeping its head (what: the tool, the status) and its
// tail (the cause of a failure, the retry).
func Fit(msg string, width int) string {
	r := []rune(msg)
	if len(r) <= width {
		return msg
	}
	if width < 2 {
		return string(r[:max(width, 0)])
	}
	head := (width - 1) / 3
	return string(r[:head]) + "…" + string(r[len(r)-(width-1-head):])
}
