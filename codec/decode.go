package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// Decoding turns encoded messages and content blocks back into their typed values, e.g. to
// resume a session from its file. It is the inverse of AppendJSON for every role and block
// type: fields it does not know (scratch fields some writers leak) are ignored, absent fields
// take their zero value, and a field of the wrong JSON type is an error. Raw fields (tool-call
// arguments, details, custom content) are copied; tool-call arguments are also compacted,
// and so is any raw field that spans lines, so re-encoding cannot break a JSON-lines stream.

// ParseMessage decodes one encoded message.
func ParseMessage(raw []byte) (Message, error) {
	v, err := decodeObject(raw, "message")
	if err != nil {
		return nil, err
	}
	return decodeMessage(v)
}

// ParseContent decodes one encoded content block.
func ParseContent(raw []byte) (Content, error) {
	v, err := decodeObject(raw, "content block")
	if err != nil {
		return nil, err
	}
	return decodeContent(v)
}

// ParseContents decodes a JSON array of content blocks.
func ParseContents(raw []byte) ([]Content, error) {
	if !gjson.ValidBytes(raw) {
		return nil, errors.New("codec: content: invalid JSON")
	}
	v := gjson.ParseBytes(raw)
	if !v.IsArray() {
		return nil, fmt.Errorf("codec: content: expected array, got %s", decodeTypeName(v))
	}
	return decodeContents(v)
}

func decodeObject(raw []byte, what string) (gjson.Result, error) {
	if !gjson.ValidBytes(raw) {
		return gjson.Result{}, fmt.Errorf("codec: %s: invalid JSON", what)
	}
	v := gjson.ParseBytes(raw)
	if !v.IsObject() {
		return gjson.Result{}, fmt.Errorf("codec: %s: expected object, got %s", what, decodeTypeName(v))
	}
	return v, nil
}

func decodeTypeName(v gjson.Result) string {
	switch v.Type {
	case gjson.Null:
		if !v.Exists() {
			return "nothing"
		}
		return "null"
	case gjson.False, gjson.True:
		return "boolean"
	case gjson.Number:
		return "number"
	case gjson.String:
		return "string"
	}
	if v.IsArray() {
		return "array"
	}
	return "object"
}

// decodeFields reads the members of one object in a single pass, keeping the first type error.
type decodeFields struct {
	what string // "assistant message", "text block", ... for error messages
	err  error
}

func (f *decodeFields) fail(key string, want string, v gjson.Result) {
	if f.err == nil {
		f.err = fmt.Errorf("codec: %s: field %q: expected %s, got %s", f.what, key, want, decodeTypeName(v))
	}
}

// str reads a string; null counts as absent.
func (f *decodeFields) str(key string, v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	}
	f.fail(key, "string", v)
	return ""
}

func (f *decodeFields) int(key string, v gjson.Result) int64 {
	switch v.Type {
	case gjson.Number:
		return v.Int()
	case gjson.Null:
		return 0
	}
	f.fail(key, "number", v)
	return 0
}

func (f *decodeFields) optInt(key string, v gjson.Result) *int64 {
	if v.Type == gjson.Null {
		return nil
	}
	n := f.int(key, v)
	return &n
}

func (f *decodeFields) float(key string, v gjson.Result) float64 {
	switch v.Type {
	case gjson.Number:
		return v.Num
	case gjson.Null:
		return 0
	}
	f.fail(key, "number", v)
	return 0
}

func (f *decodeFields) bool(key string, v gjson.Result) bool {
	switch v.Type {
	case gjson.True:
		return true
	case gjson.False, gjson.Null:
		return false
	}
	f.fail(key, "boolean", v)
	return false
}

func (f *decodeFields) optBool(key string, v gjson.Result) *bool {
	if v.Type == gjson.Null {
		return nil
	}
	b := f.bool(key, v)
	return &b
}

// raw copies an encoded value as it is, unless it spans lines: then it is compacted, so
// that re-encoding it cannot break a JSON-lines stream.
func (f *decodeFields) raw(v gjson.Result) json.RawMessage {
	if strings.ContainsAny(v.Raw, "\n\r") {
		return decodeCompact(v.Raw)
	}
	return json.RawMessage(v.Raw)
}

func (f *decodeFields) contents(key string, v gjson.Result) []Content {
	if v.Type == gjson.Null {
		return []Content{}
	}
	if !v.IsArray() {
		f.fail(key, "array", v)
		return nil
	}
	cs, err := decodeContents(v)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("codec: %s: field %q: %w", f.what, key, err)
	}
	return cs
}

func decodeContents(v gjson.Result) ([]Content, error) {
	cs := []Content{}
	var err error
	i := 0
	v.ForEach(func(_, b gjson.Result) bool {
		var c Content
		if !b.IsObject() {
			err = fmt.Errorf("block %d: expected object, got %s", i, decodeTypeName(b))
			return false
		}
		c, err = decodeContent(b)
		if err != nil {
			err = fmt.Errorf("block %d: %w", i, err)
			return false
		}
		cs = append(cs, c)
		i++
		return true
	})
	return cs, err
}

func decodeContent(v gjson.Result) (Content, error) {
	typ := v.Get("type")
	if typ.Type != gjson.String {
		return nil, fmt.Errorf("codec: content block: field \"type\": expected string, got %s", decodeTypeName(typ))
	}
	switch typ.Str {
	case "text":
		c := &TextContent{}
		f := decodeFields{what: "text block"}
		v.ForEach(func(k, x gjson.Result) bool {
			switch k.Str {
			case "text":
				c.Text = f.str(k.Str, x)
			case "textSignature":
				c.TextSignature = f.str(k.Str, x)
			}
			return f.err == nil
		})
		return c, f.err
	case "thinking":
		c := &ThinkingContent{}
		f := decodeFields{what: "thinking block"}
		v.ForEach(func(k, x gjson.Result) bool {
			switch k.Str {
			case "thinking":
				c.Thinking = f.str(k.Str, x)
			case "thinkingSignature":
				c.ThinkingSignature = f.str(k.Str, x)
			case "redacted":
				c.Redacted = f.bool(k.Str, x)
			}
			return f.err == nil
		})
		return c, f.err
	case "image":
		c := &ImageContent{}
		f := decodeFields{what: "image block"}
		v.ForEach(func(k, x gjson.Result) bool {
			switch k.Str {
			case "data":
				c.Data = f.str(k.Str, x)
			case "mimeType":
				c.MimeType = f.str(k.Str, x)
			}
			return f.err == nil
		})
		return c, f.err
	case "toolCall":
		c := &ToolCall{}
		f := decodeFields{what: "toolCall block"}
		v.ForEach(func(k, x gjson.Result) bool {
			switch k.Str {
			case "id":
				c.ID = f.str(k.Str, x)
			case "name":
				c.Name = f.str(k.Str, x)
			case "thoughtSignature":
				c.ThoughtSignature = f.str(k.Str, x)
			case "arguments":
				c.Arguments = decodeCompact(x.Raw)
			}
			return f.err == nil
		})
		if c.Arguments == nil {
			c.Arguments = json.RawMessage("{}")
		}
		return c, f.err
	}
	return nil, fmt.Errorf("codec: content block: unknown type %q", typ.Str)
}

// decodeCompact copies an encoded value without insignificant whitespace.
func decodeCompact(raw string) json.RawMessage {
	if raw == "" {
		return nil
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return json.RawMessage(raw) // cannot happen: the input was validated
	}
	return b.Bytes()
}

func decodeMessage(v gjson.Result) (Message, error) {
	role := v.Get("role")
	if role.Type != gjson.String {
		return nil, fmt.Errorf("codec: message: field \"role\": expected string, got %s", decodeTypeName(role))
	}
	switch role.Str {
	case "user":
		return decodeUser(v)
	case "assistant":
		return decodeAssistant(v)
	case "toolResult":
		return decodeToolResult(v)
	case "bashExecution":
		return decodeBashExecution(v)
	case "custom":
		return decodeCustom(v)
	case "branchSummary":
		m := &BranchSummaryMessage{}
		f := decodeFields{what: "branchSummary message"}
		v.ForEach(func(k, x gjson.Result) bool {
			switch k.Str {
			case "summary":
				m.Summary = f.str(k.Str, x)
			case "fromId":
				m.FromID = f.str(k.Str, x)
			case "timestamp":
				m.Timestamp = f.int(k.Str, x)
			}
			return f.err == nil
		})
		return m, f.err
	case "compactionSummary":
		m := &CompactionSummaryMessage{}
		f := decodeFields{what: "compactionSummary message"}
		v.ForEach(func(k, x gjson.Result) bool {
			switch k.Str {
			case "summary":
				m.Summary = f.str(k.Str, x)
			case "tokensBefore":
				m.TokensBefore = f.int(k.Str, x)
			case "timestamp":
				m.Timestamp = f.int(k.Str, x)
			}
			return f.err == nil
		})
		return m, f.err
	}
	return nil, fmt.Errorf("codec: message: unknown role %q", role.Str)
}

func decodeUser(v gjson.Result) (Message, error) {
	m := &UserMessage{}
	f := decodeFields{what: "user message"}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "content":
			if x.Type == gjson.String {
				m.Text = x.Str
			} else {
				m.Blocks = f.contents(k.Str, x)
			}
		case "timestamp":
			m.Timestamp = f.int(k.Str, x)
		}
		return f.err == nil
	})
	return m, f.err
}

func decodeAssistant(v gjson.Result) (Message, error) {
	m := &AssistantMessage{Content: []Content{}}
	f := decodeFields{what: "assistant message"}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "content":
			m.Content = f.contents(k.Str, x)
		case "api":
			m.API = f.str(k.Str, x)
		case "provider":
			m.Provider = f.str(k.Str, x)
		case "model":
			m.Model = f.str(k.Str, x)
		case "usage":
			m.Usage = f.usage(k.Str, x)
		case "stopReason":
			m.StopReason = f.str(k.Str, x)
		case "errorMessage":
			m.ErrorMessage = f.str(k.Str, x)
		case "timestamp":
			m.Timestamp = f.int(k.Str, x)
		case "responseId":
			m.ResponseID = f.str(k.Str, x)
		}
		return f.err == nil
	})
	return m, f.err
}

func (f *decodeFields) usage(key string, v gjson.Result) (u Usage) {
	if v.Type == gjson.Null {
		return u
	}
	if !v.IsObject() {
		f.fail(key, "object", v)
		return u
	}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "input":
			u.Input = f.int("usage."+k.Str, x)
		case "output":
			u.Output = f.int("usage."+k.Str, x)
		case "cacheRead":
			u.CacheRead = f.int("usage."+k.Str, x)
		case "cacheWrite":
			u.CacheWrite = f.int("usage."+k.Str, x)
		case "totalTokens":
			u.TotalTokens = f.int("usage."+k.Str, x)
		case "cost":
			u.Cost = f.cost("usage.cost", x)
		}
		return f.err == nil
	})
	return u
}

func (f *decodeFields) cost(key string, v gjson.Result) (c Cost) {
	if v.Type == gjson.Null {
		return c
	}
	if !v.IsObject() {
		f.fail(key, "object", v)
		return c
	}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "input":
			c.Input = f.float(key+"."+k.Str, x)
		case "output":
			c.Output = f.float(key+"."+k.Str, x)
		case "cacheRead":
			c.CacheRead = f.float(key+"."+k.Str, x)
		case "cacheWrite":
			c.CacheWrite = f.float(key+"."+k.Str, x)
		case "total":
			c.Total = f.float(key+"."+k.Str, x)
		}
		return f.err == nil
	})
	return c
}

func decodeToolResult(v gjson.Result) (Message, error) {
	m := &ToolResultMessage{Content: []Content{}}
	f := decodeFields{what: "toolResult message"}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "toolCallId":
			m.ToolCallID = f.str(k.Str, x)
		case "toolName":
			m.ToolName = f.str(k.Str, x)
		case "content":
			m.Content = f.contents(k.Str, x)
		case "details":
			m.Details = f.raw(x)
		case "isError":
			m.IsError = f.bool(k.Str, x)
		case "timestamp":
			m.Timestamp = f.int(k.Str, x)
		}
		return f.err == nil
	})
	return m, f.err
}

func decodeBashExecution(v gjson.Result) (Message, error) {
	m := &BashExecutionMessage{}
	f := decodeFields{what: "bashExecution message"}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "command":
			m.Command = f.str(k.Str, x)
		case "output":
			m.Output = f.str(k.Str, x)
		case "exitCode":
			m.ExitCode = f.optInt(k.Str, x)
		case "cancelled":
			m.Cancelled = f.bool(k.Str, x)
		case "truncated":
			m.Truncated = f.bool(k.Str, x)
		case "fullOutputPath":
			m.FullOutputPath = f.str(k.Str, x)
		case "excludeFromContext":
			m.ExcludeFromContext = f.optBool(k.Str, x)
		case "timestamp":
			m.Timestamp = f.int(k.Str, x)
		}
		return f.err == nil
	})
	return m, f.err
}

func decodeCustom(v gjson.Result) (Message, error) {
	m := &CustomMessage{}
	f := decodeFields{what: "custom message"}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "customType":
			m.CustomType = f.str(k.Str, x)
		case "content":
			m.Content = f.raw(x)
		case "display":
			m.Display = f.bool(k.Str, x)
		case "details":
			m.Details = f.raw(x)
		case "timestamp":
			m.Timestamp = f.int(k.Str, x)
		}
		return f.err == nil
	})
	return m, f.err
}
