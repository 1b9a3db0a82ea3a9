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

// lastMember is the member key of the object v: of duplicate keys the last, as jq reads
// them (gjson's Get takes the first).
func lastMember(v gjson.Result, key string) gjson.Result {
	var found gjson.Result
	v.ForEach(func(k, x gjson.Result) bool {
		if k.Str == key {
			found = x
		}
		return true
	})
	return found
}

// eachMember calls fn for the members of the object v in order until fn returns false, but
// of duplicate keys only for the last, as jq reads them: an earlier duplicate neither counts
// nor fails a type check.
func eachMember(v gjson.Result, fn func(k, x gjson.Result) bool) {
	if !hasDuplicateKeys(v) {
		v.ForEach(fn)
		return
	}
	type member struct{ k, x gjson.Result }
	var members []member
	last := map[string]int{}
	v.ForEach(func(k, x gjson.Result) bool {
		last[k.Str] = len(members)
		members = append(members, member{k, x})
		return true
	})
	for i, m := range members {
		if last[m.k.Str] == i && !fn(m.k, m.x) {
			return
		}
	}
}

func hasDuplicateKeys(v gjson.Result) bool {
	var store [16]string
	keys := store[:0]
	var seen map[string]bool
	dup := false
	v.ForEach(func(k, _ gjson.Result) bool {
		if seen != nil {
			dup = seen[k.Str]
			seen[k.Str] = true
			return !dup
		}
		for _, key := range keys {
			if key == k.Str {
				dup = true
				return false
			}
		}
		keys = append(keys, k.Str)
		if len(keys) == len(store) {
			seen = make(map[string]bool, 2*len(store))
			for _, key := range keys {
				seen[key] = true
			}
		}
		return true
	})
	return dup
}

// TypeName names the JSON type of v for error messages: "string", "number", "boolean",
// "null", "array", "object", or "nothing" when v is absent.
func TypeName(v gjson.Result) string { return decodeTypeName(v) }

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

// Fields reads typed members of one object (decoded in a single pass with gjson), keeping
// the first type error. Null counts as absent.
type Fields struct {
	What string // "assistant message", "text block", ... for error messages
	Err  error
}

func (f *Fields) fail(key string, want string, v gjson.Result) {
	if f.Err == nil {
		f.Err = fmt.Errorf("codec: %s: field %q: expected %s, got %s", f.What, key, want, decodeTypeName(v))
	}
}

// str reads a string; null counts as absent.
func (f *Fields) Str(key string, v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	}
	f.fail(key, "string", v)
	return ""
}

func (f *Fields) Int(key string, v gjson.Result) int64 {
	switch v.Type {
	case gjson.Number:
		return v.Int()
	case gjson.Null:
		return 0
	}
	f.fail(key, "number", v)
	return 0
}

func (f *Fields) OptInt(key string, v gjson.Result) *int64 {
	if v.Type == gjson.Null {
		return nil
	}
	n := f.Int(key, v)
	return &n
}

func (f *Fields) Float(key string, v gjson.Result) float64 {
	switch v.Type {
	case gjson.Number:
		return v.Num
	case gjson.Null:
		return 0
	}
	f.fail(key, "number", v)
	return 0
}

func (f *Fields) Bool(key string, v gjson.Result) bool {
	switch v.Type {
	case gjson.True:
		return true
	case gjson.False, gjson.Null:
		return false
	}
	f.fail(key, "boolean", v)
	return false
}

func (f *Fields) OptBool(key string, v gjson.Result) *bool {
	if v.Type == gjson.Null {
		return nil
	}
	b := f.Bool(key, v)
	return &b
}

// raw copies an encoded value as it is, unless it spans lines: then it is compacted, so
// that re-encoding it cannot break a JSON-lines stream.
func (f *Fields) Raw(v gjson.Result) json.RawMessage {
	if strings.ContainsAny(v.Raw, "\n\r") {
		return decodeCompact(v.Raw)
	}
	return json.RawMessage(v.Raw)
}

func (f *Fields) Contents(key string, v gjson.Result) []Content {
	if v.Type == gjson.Null {
		return []Content{}
	}
	if !v.IsArray() {
		f.fail(key, "array", v)
		return nil
	}
	cs, err := decodeContents(v)
	if err != nil && f.Err == nil {
		f.Err = fmt.Errorf("codec: %s: field %q: %w", f.What, key, err)
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
	typ := lastMember(v, "type")
	if typ.Type != gjson.String {
		return nil, fmt.Errorf("codec: content block: field \"type\": expected string, got %s", decodeTypeName(typ))
	}
	switch typ.Str {
	case "text":
		c := &TextContent{}
		f := Fields{What: "text block"}
		eachMember(v, func(k, x gjson.Result) bool {
			switch k.Str {
			case "text":
				c.Text = f.Str(k.Str, x)
			case "textSignature":
				c.TextSignature = f.Str(k.Str, x)
			}
			return f.Err == nil
		})
		return c, f.Err
	case "thinking":
		c := &ThinkingContent{}
		f := Fields{What: "thinking block"}
		eachMember(v, func(k, x gjson.Result) bool {
			switch k.Str {
			case "thinking":
				c.Thinking = f.Str(k.Str, x)
			case "thinkingSignature":
				c.ThinkingSignature = f.Str(k.Str, x)
			case "redacted":
				c.Redacted = f.Bool(k.Str, x)
			}
			return f.Err == nil
		})
		return c, f.Err
	case "image":
		c := &ImageContent{}
		f := Fields{What: "image block"}
		eachMember(v, func(k, x gjson.Result) bool {
			switch k.Str {
			case "data":
				c.Data = f.Str(k.Str, x)
			case "mimeType":
				c.MimeType = f.Str(k.Str, x)
			}
			return f.Err == nil
		})
		return c, f.Err
	case "toolCall":
		c := &ToolCall{}
		f := Fields{What: "toolCall block"}
		eachMember(v, func(k, x gjson.Result) bool {
			switch k.Str {
			case "id":
				c.ID = f.Str(k.Str, x)
			case "name":
				c.Name = f.Str(k.Str, x)
			case "thoughtSignature":
				c.ThoughtSignature = f.Str(k.Str, x)
			case "arguments":
				c.Arguments = decodeCompact(x.Raw)
			}
			return f.Err == nil
		})
		if c.Arguments == nil {
			c.Arguments = json.RawMessage("{}")
		}
		return c, f.Err
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
	role := lastMember(v, "role")
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
		f := Fields{What: "branchSummary message"}
		eachMember(v, func(k, x gjson.Result) bool {
			switch k.Str {
			case "summary":
				m.Summary = f.Str(k.Str, x)
			case "fromId":
				m.FromID = f.Str(k.Str, x)
			case "timestamp":
				m.Timestamp = f.Int(k.Str, x)
			}
			return f.Err == nil
		})
		return m, f.Err
	case "compactionSummary":
		m := &CompactionSummaryMessage{}
		f := Fields{What: "compactionSummary message"}
		eachMember(v, func(k, x gjson.Result) bool {
			switch k.Str {
			case "summary":
				m.Summary = f.Str(k.Str, x)
			case "tokensBefore":
				m.TokensBefore = f.Int(k.Str, x)
			case "timestamp":
				m.Timestamp = f.Int(k.Str, x)
			}
			return f.Err == nil
		})
		return m, f.Err
	}
	return nil, fmt.Errorf("codec: message: unknown role %q", role.Str)
}

func decodeUser(v gjson.Result) (Message, error) {
	m := &UserMessage{}
	f := Fields{What: "user message"}
	eachMember(v, func(k, x gjson.Result) bool {
		switch k.Str {
		case "content":
			if x.Type == gjson.String {
				m.Text = x.Str
			} else {
				m.Blocks = f.Contents(k.Str, x)
			}
		case "timestamp":
			m.Timestamp = f.Int(k.Str, x)
		}
		return f.Err == nil
	})
	return m, f.Err
}

func decodeAssistant(v gjson.Result) (Message, error) {
	m := &AssistantMessage{Content: []Content{}}
	f := Fields{What: "assistant message"}
	eachMember(v, func(k, x gjson.Result) bool {
		switch k.Str {
		case "content":
			m.Content = f.Contents(k.Str, x)
		case "api":
			m.API = f.Str(k.Str, x)
		case "provider":
			m.Provider = f.Str(k.Str, x)
		case "model":
			m.Model = f.Str(k.Str, x)
		case "usage":
			m.Usage = f.usage(k.Str, x)
		case "stopReason":
			m.StopReason = f.Str(k.Str, x)
		case "errorMessage":
			m.ErrorMessage = f.Str(k.Str, x)
		case "timestamp":
			m.Timestamp = f.Int(k.Str, x)
		case "responseId":
			m.ResponseID = f.Str(k.Str, x)
		}
		return f.Err == nil
	})
	return m, f.Err
}

func (f *Fields) usage(key string, v gjson.Result) (u Usage) {
	if v.Type == gjson.Null {
		return u
	}
	if !v.IsObject() {
		f.fail(key, "object", v)
		return u
	}
	eachMember(v, func(k, x gjson.Result) bool {
		switch k.Str {
		case "input":
			u.Input = f.Int("usage."+k.Str, x)
		case "output":
			u.Output = f.Int("usage."+k.Str, x)
		case "cacheRead":
			u.CacheRead = f.Int("usage."+k.Str, x)
		case "cacheWrite":
			u.CacheWrite = f.Int("usage."+k.Str, x)
		case "totalTokens":
			u.TotalTokens = f.Int("usage."+k.Str, x)
		case "cost":
			u.Cost = f.cost("usage.cost", x)
		}
		return f.Err == nil
	})
	return u
}

func (f *Fields) cost(key string, v gjson.Result) (c Cost) {
	if v.Type == gjson.Null {
		return c
	}
	if !v.IsObject() {
		f.fail(key, "object", v)
		return c
	}
	eachMember(v, func(k, x gjson.Result) bool {
		switch k.Str {
		case "input":
			c.Input = f.Float(key+"."+k.Str, x)
		case "output":
			c.Output = f.Float(key+"."+k.Str, x)
		case "cacheRead":
			c.CacheRead = f.Float(key+"."+k.Str, x)
		case "cacheWrite":
			c.CacheWrite = f.Float(key+"."+k.Str, x)
		case "total":
			c.Total = f.Float(key+"."+k.Str, x)
		}
		return f.Err == nil
	})
	return c
}

func decodeToolResult(v gjson.Result) (Message, error) {
	m := &ToolResultMessage{Content: []Content{}}
	f := Fields{What: "toolResult message"}
	eachMember(v, func(k, x gjson.Result) bool {
		switch k.Str {
		case "toolCallId":
			m.ToolCallID = f.Str(k.Str, x)
		case "toolName":
			m.ToolName = f.Str(k.Str, x)
		case "content":
			m.Content = f.Contents(k.Str, x)
		case "details":
			m.Details = f.Raw(x)
		case "isError":
			m.IsError = f.Bool(k.Str, x)
		case "timestamp":
			m.Timestamp = f.Int(k.Str, x)
		}
		return f.Err == nil
	})
	return m, f.Err
}

func decodeBashExecution(v gjson.Result) (Message, error) {
	m := &BashExecutionMessage{}
	f := Fields{What: "bashExecution message"}
	eachMember(v, func(k, x gjson.Result) bool {
		switch k.Str {
		case "command":
			m.Command = f.Str(k.Str, x)
		case "output":
			m.Output = f.Str(k.Str, x)
		case "exitCode":
			m.ExitCode = f.OptInt(k.Str, x)
		case "cancelled":
			m.Cancelled = f.Bool(k.Str, x)
		case "truncated":
			m.Truncated = f.Bool(k.Str, x)
		case "fullOutputPath":
			m.FullOutputPath = f.Str(k.Str, x)
		case "excludeFromContext":
			m.ExcludeFromContext = f.OptBool(k.Str, x)
		case "timestamp":
			m.Timestamp = f.Int(k.Str, x)
		}
		return f.Err == nil
	})
	return m, f.Err
}

func decodeCustom(v gjson.Result) (Message, error) {
	m := &CustomMessage{}
	f := Fields{What: "custom message"}
	eachMember(v, func(k, x gjson.Result) bool {
		switch k.Str {
		case "customType":
			m.CustomType = f.Str(k.Str, x)
		case "content":
			m.Content = f.Raw(x)
		case "display":
			m.Display = f.Bool(k.Str, x)
		case "details":
			m.Details = f.Raw(x)
		case "timestamp":
			m.Timestamp = f.Int(k.Str, x)
		}
		return f.Err == nil
	})
	return m, f.Err
}

// ParseHeader decodes a session header line.
func ParseHeader(line []byte) (*Header, error) {
	if err := CheckObject(line); err != nil {
		return nil, err
	}
	h := &Header{}
	f := Fields{What: "session header"}
	typ := ""
	eachMember(gjson.ParseBytes(line), func(k, x gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = f.Str(k.Str, x)
		case "version":
			h.Version = f.Int(k.Str, x)
		case "id":
			h.ID = f.Str(k.Str, x)
		case "timestamp":
			h.Timestamp = f.Str(k.Str, x)
		case "cwd":
			h.Cwd = f.Str(k.Str, x)
		case "parentSession":
			h.ParentSession = f.Str(k.Str, x)
		}
		return f.Err == nil
	})
	if f.Err == nil && typ != TypeSession {
		f.Err = fmt.Errorf("not a session header (type %q)", typ)
	}
	return h, f.Err
}
