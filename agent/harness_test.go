package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

// recorder keeps the events of a run, for tests to look at.
type recorder struct {
	mu     sync.Mutex
	events []codec.Event
}

func (r *recorder) emit(e codec.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

// shapes names each event: its type, with the role for message events and the tool for
// tool events, e.g. "message_start user", "tool_execution_end gate".
func (r *recorder) shapes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		s := e.EventType()
		switch e := e.(type) {
		case *codec.MessageStart:
			s += " " + e.Message.Role()
		case *codec.MessageEnd:
			s += " " + e.Message.Role()
		case *codec.ToolExecutionStart:
			s += " " + e.ToolName
		case *codec.ToolExecutionEnd:
			s += " " + e.ToolName
		case *codec.MessageUpdate:
			continue // streaming detail, covered by the assembler's tests
		}
		out = append(out, s)
	}
	return out
}

// of returns the recorded events of type T.
func eventsOf[T codec.Event](r *recorder) []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []T
	for _, e := range r.events {
		if t, ok := e.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// hookTool is a tool whose run calls a test's function: a deterministic point in the middle
// of a run.
type hookTool struct {
	run func()
}

func (*hookTool) Name() string                { return "hook" }
func (*hookTool) Description() string         { return "test hook" }
func (*hookTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (h *hookTool) Execute(context.Context, json.RawMessage, func(codec.ToolResult)) (tools.Result, error) {
	if h.run != nil {
		h.run()
	}
	return tools.Result{Content: []codec.Content{&codec.TextContent{Text: "ok"}}}, nil
}

// testAgent builds an agent on a script (the JSON text of a script file).
func testAgent(t *testing.T, script string, cfg Config) (*Agent, *recorder, *provider.Script) {
	t.Helper()
	s, err := provider.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	cfg.Provider = s
	if cfg.Model.ID == "" {
		cfg.Model = provider.Model{ID: "m", Provider: "script", API: "script", ContextWindow: 200000}
	}
	if cfg.Store == nil {
		cfg.Store = session.NewMemory()
	}
	cfg.Emit = rec.emit
	return New(cfg, nil), rec, s
}

func userText(text string) *codec.UserMessage {
	return &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: text}}}
}

// messageText joins the text blocks of a user or assistant message.
func messageText(m codec.Message) string {
	var blocks []codec.Content
	switch m := m.(type) {
	case *codec.UserMessage:
		if m.Blocks == nil {
			return m.Text
		}
		blocks = m.Blocks
	case *codec.AssistantMessage:
		blocks = m.Content
	case *codec.CompactionSummaryMessage:
		return m.Summary
	}
	var b strings.Builder
	for _, c := range blocks {
		if t, ok := c.(*codec.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func joinShapes(s []string) string { return strings.Join(s, "\n") }
