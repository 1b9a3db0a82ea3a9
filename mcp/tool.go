package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prefix starts the name of every MCP tool: mcp__<server>__<tool>.
const Prefix = "mcp__"

// maxName is the longest tool name the providers accept.
const maxName = 64

// sanitize keeps the characters the providers accept in a tool name ([A-Za-z0-9_-]); the
// others become _.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// ToolName is the name a server's tool is offered under: mcp__<server>__<tool>, sanitized,
// cut at 64 characters.
func ToolName(server, tool string) string {
	name := Prefix + sanitize(server) + "__" + sanitize(tool)
	if len(name) > maxName {
		name = name[:maxName]
	}
	return name
}

// remoteTool is one tool of a server as the run names it.
type remoteTool struct {
	srv    *server
	name   string
	remote *sdk.Tool
	params json.RawMessage
}

// name names the tools of the connected servers; a name taken already (two tools that
// sanitize or cut alike) is refused, with a note.
func (set *Set) name() {
	taken := map[string]string{}
	for _, s := range set.servers {
		kept := 0
		for _, t := range s.listed {
			name := ToolName(s.cfg.Name, t.Name)
			if other, dup := taken[name]; dup {
				set.notes = append(set.notes, fmt.Sprintf("MCP server %s: tool %q is left out: its name %s is %s's already", s.cfg.Name, t.Name, name, other))
				continue
			}
			taken[name] = fmt.Sprintf("%s/%s", s.cfg.Name, t.Name)
			set.tools = append(set.tools, &remoteTool{srv: s, name: name, remote: t, params: schema(t.InputSchema)})
			kept++
		}
		s.status.Tools = int64(kept)
	}
}

// schema is a tool's input schema as the providers want it: an object schema.
func schema(in any) json.RawMessage {
	raw, err := json.Marshal(in)
	var m map[string]any
	if err != nil || json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	raw, _ = json.Marshal(m)
	return raw
}

// Tools are the servers' tools for a run whose tools have opts (where full outputs go,
// redaction).
func (set *Set) Tools(opts tools.Options) []tools.Tool {
	if set == nil {
		return nil
	}
	out := make([]tools.Tool, len(set.tools))
	for i, t := range set.tools {
		out[i] = &boundTool{t, opts}
	}
	return out
}

// ToolNames are the names of the servers' tools.
func (set *Set) ToolNames() []string {
	if set == nil {
		return nil
	}
	out := make([]string, len(set.tools))
	for i, t := range set.tools {
		out[i] = t.name
	}
	return out
}

// Writes says whether a tool of the servers may change something: not annotated
// readOnlyHint (--read-only refuses it). Unknown names are not the servers'.
func (set *Set) Writes(name string) bool {
	if !strings.HasPrefix(name, Prefix) {
		return false
	}
	if set != nil {
		for _, t := range set.tools {
			if t.name == name {
				return t.remote.Annotations == nil || !t.remote.Annotations.ReadOnlyHint
			}
		}
	}
	return true
}

type boundTool struct {
	*remoteTool
	opts tools.Options
}

func (t *boundTool) Name() string { return t.name }

func (t *boundTool) Description() string {
	d := t.remote.Description
	if d == "" {
		d = t.remote.Title
	}
	return d
}

func (t *boundTool) Parameters() json.RawMessage { return t.params }

// Execute calls the tool. The call is cancelled (the server is told) when it gets no answer
// and no progress for toolTimeout; a progress notification shows as an update.
func (t *boundTool) Execute(ctx context.Context, args json.RawMessage, update func(codec.ToolResult)) (tools.Result, error) {
	s := t.srv
	session, err := s.session(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	timeout := s.cfg.ToolTimeout.or(DefaultToolTimeout)
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // guards timedOut and returned
	timedOut, returned := false, false
	timer := time.AfterFunc(timeout, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		cancel()
	})
	defer timer.Stop()
	token := s.callToken()
	s.tokens.Store(token, func(p *sdk.ProgressNotificationParams) {
		mu.Lock()
		defer mu.Unlock()
		if returned { // a late notification: no update after the result
			return
		}
		timer.Reset(timeout)
		update(codec.ToolResult{Content: []codec.Content{&codec.TextContent{Text: progressText(p)}}})
	})
	defer s.tokens.Delete(token)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	params := &sdk.CallToolParams{Name: t.remote.Name, Arguments: args}
	params.SetProgressToken(token)
	res, err := session.CallTool(callCtx, params)
	mu.Lock()
	cut := timedOut
	returned = true
	mu.Unlock()
	switch {
	case cut:
		return tools.Result{}, fmt.Errorf("%s: no answer or progress within %s (toolTimeout): the call was cancelled", t.name, timeout)
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case err != nil && s.lost(session, err):
		return tools.Result{}, fmt.Errorf("MCP server %s stopped during the call: %v", s.cfg.Name, err)
	case err != nil:
		return tools.Result{}, fmt.Errorf("%s: %v", t.name, err)
	}
	return t.result(res), nil
}

// lost says whether err, of a call on session, means that the server is gone (its stdout
// ended, the connection closed), and marks the connection so that the next call restarts it.
func (s *server) lost(session *sdk.ClientSession, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil || s.conn.session != session {
		return true // closed or replaced meanwhile
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, sdk.ErrConnectionClosed) {
		s.conn.lost.Store(true)
	}
	return !s.conn.alive()
}

func progressText(p *sdk.ProgressNotificationParams) string {
	text := fmt.Sprintf("progress %g", p.Progress)
	if p.Total > 0 {
		text += fmt.Sprintf("/%g", p.Total)
	}
	if p.Message != "" {
		text += ": " + p.Message
	}
	return text
}

// result is the server's result for the model: text as text (within the output limits),
// images as images, resource links and embedded resources as text naming them.
func (t *boundTool) result(res *sdk.CallToolResult) tools.Result {
	var out []codec.Content
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			cut, _, _ := tools.Truncate(text.String(), t.opts, false)
			out = append(out, &codec.TextContent{Text: cut})
			text.Reset()
		}
	}
	add := func(s string) {
		if text.Len() > 0 {
			text.WriteString("\n")
		}
		text.WriteString(s)
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			add(c.Text)
		case *sdk.ImageContent:
			flush()
			out = append(out, &codec.ImageContent{Data: base64.StdEncoding.EncodeToString(c.Data), MimeType: c.MIMEType})
		case *sdk.AudioContent:
			add(fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			add(describeLink(c))
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil && r.Text != "" {
				add(fmt.Sprintf("Resource %s:\n%s", r.URI, r.Text))
			} else if r != nil {
				add(fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			raw, _ := json.Marshal(c)
			add(string(raw))
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		add(string(raw))
	}
	flush()
	if len(out) == 0 {
		out = append(out, &codec.TextContent{Text: "(no output)"})
	}
	return tools.Result{Content: out, IsError: res.IsError}
}

func describeLink(l *sdk.ResourceLink) string {
	text := "Resource link: " + l.URI
	if l.Name != "" {
		text += " (" + l.Name + ")"
	}
	if l.MIMEType != "" {
		text += " " + l.MIMEType
	}
	if l.Description != "" {
		text += ": " + l.Description
	}
	return text
}
