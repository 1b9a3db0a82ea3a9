package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
)

// StatusFlags control the status line of text mode on stderr.
type StatusFlags struct {
	Verbose bool `group:"output" xor:"status-line" help:"Show progress on stderr (model calls, tools, retries, compaction) even when stderr is not a terminal, and in JSON mode; one line per change when stderr is not a terminal."`
	Quiet   bool `group:"output" xor:"status-line" help:"No status line on stderr, even when it is a terminal."`
}

// statusLine returns the sink that shows what the run is doing on stderr, or nil when it
// stays silent: text mode shows it when stderr is a terminal, any mode with --verbose. On a
// terminal it is one line rewritten in place; elsewhere one line per change, so logs (and
// tests) can read it.
func (f StatusFlags) statusLine(streams *IO, mode, model string) *statusLine {
	if f.Quiet || !(f.Verbose || mode == "text" && streams.StderrIsTerminal) {
		return nil
	}
	return &statusLine{w: streams.Err, live: streams.StderrIsTerminal, model: model}
}

// statusLine is a sink over the agent's event stream: each event that changes what the run
// is doing (a model call, a tool, a retry, a compaction) replaces the line.
type statusLine struct {
	w     io.Writer
	live  bool
	model string

	mu    sync.Mutex
	shown string
}

// liveWidth bounds the line on a terminal: a line that wraps cannot be rewritten in place.
const liveWidth = 79

// event updates the line from one event of the stream. It is safe on a nil line.
func (s *statusLine) event(e codec.Event) {
	if s == nil {
		return
	}
	if text, ok := statusOf(e, s.model); ok {
		s.show(text)
	}
}

// statusOf is what the run is doing after e; ok is false when e changes nothing.
func statusOf(e codec.Event, model string) (string, bool) {
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

// shorten fits msg in width characters, keeping its head (what: the tool, the status)
// and its tail (the cause of a failure, the retry).
func shorten(msg string, width int) string {
	r := []rune(msg)
	if len(r) <= width {
		return msg
	}
	head := (width - 1) / 3
	return string(r[:head]) + "…" + string(r[len(r)-(width-1-head):])
}

func firstLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if cut {
		s += " …"
	}
	return s
}

func (s *statusLine) show(text string) {
	if s.live {
		text = shorten(text, liveWidth)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if text == s.shown {
		return
	}
	s.shown = text
	switch {
	case s.live:
		fmt.Fprintf(s.w, "\r\x1b[K%s", text) // \x1b[K clears what a longer line left
	case text != "":
		fmt.Fprintln(s.w, text)
	}
}

// clear removes the line, before the answer or an error is printed.
func (s *statusLine) clear() {
	if s != nil {
		s.show("")
	}
}

// serverHint adds to a refused connection to a server on this machine the question a user
// should ask first: a local model server (Ollama, llama.cpp, vLLM) that is not running is
// the usual cause.
type serverHint struct {
	provider.Provider
	baseURL string
}

// withServerHint wraps p when baseURL is a server on this machine.
func withServerHint(p provider.Provider, baseURL string) provider.Provider {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return p
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return p
	}
	return serverHint{Provider: p, baseURL: baseURL}
}

func (p serverHint) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) error {
	err := p.Provider.Stream(ctx, req, emit)
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Status == 0 && strings.Contains(pe.Message, "connection refused") {
		hinted := *pe
		hinted.Message += " (is the server running at " + p.baseURL + "?)"
		return &hinted
	}
	return err
}
