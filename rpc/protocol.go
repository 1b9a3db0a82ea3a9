// Package rpc is `--mode rpc`: a client drives the agent with one JSON command per line on
// stdin and reads responses, events and dialog requests as JSON lines on stdout. The
// protocol is the upstream coding agent's (its RpcClient works unchanged); the events are
// exactly those of `--mode json`, written through the same stage chain.
package rpc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/tidwall/gjson"
)

// command is one decoded command line.
type command struct {
	id    string // "" when the command has none
	hasID bool
	typ   string
	v     gjson.Result
}

// parseError is a line that is not a command object: it gets a "parse" response.
type parseError struct{ msg string }

func (e *parseError) Error() string { return e.msg }

// decodeCommand decodes a line. A line that is not a JSON object is a *parseError; a
// command without a string "type" is returned with an error naming the problem, so that its
// response still carries the command's id.
func decodeCommand(line []byte) (command, error) {
	if !gjson.ValidBytes(line) {
		return command{}, &parseError{"Failed to parse command: " + invalidJSON(line)}
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return command{}, &parseError{fmt.Sprintf("Failed to parse command: expected a JSON object, got %s", kind(v))}
	}
	c := command{v: v}
	if id := v.Get("id"); id.Exists() {
		switch id.Type {
		case gjson.String:
			c.id, c.hasID = id.Str, true
		case gjson.Number:
			c.id, c.hasID = id.Raw, true // echoed as a string: the upstream's ids are strings
		}
	}
	t := v.Get("type")
	if t.Type != gjson.String {
		if !t.Exists() {
			return c, fmt.Errorf(`the command has no "type"`)
		}
		return c, fmt.Errorf(`"type" must be a string, got %s`, kind(t))
	}
	c.typ = t.Str
	return c, nil
}

// invalidJSON says where line stops being JSON, as encoding/json's error does.
func invalidJSON(line []byte) string {
	var x any
	if err := json.Unmarshal(line, &x); err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// kind names v's JSON type for an error message: "a string", "null", "nothing", ….
func kind(v gjson.Result) string {
	switch name := codec.TypeName(v); name {
	case "null", "nothing":
		return name
	case "array", "object":
		return "an " + name
	default:
		return "a " + name
	}
}

// argError is a command's argument that is missing or of the wrong type.
func argError(name, want string, v gjson.Result) error {
	if !v.Exists() {
		return fmt.Errorf("missing %q (%s)", name, want)
	}
	return fmt.Errorf("%q must be %s, got %s", name, want, kind(v))
}

// str returns the string argument name; required says whether it must be there.
func (c command) str(name string, required bool) (string, error) {
	v := c.v.Get(gjson.Escape(name))
	if v.Type == gjson.String {
		return v.Str, nil
	}
	if !required && (!v.Exists() || v.Type == gjson.Null) {
		return "", nil
	}
	return "", argError(name, "a string", v)
}

// boolean returns the boolean argument name, which must be there.
func (c command) boolean(name string) (bool, error) {
	v := c.v.Get(gjson.Escape(name))
	if v.IsBool() {
		return v.Bool(), nil
	}
	return false, argError(name, "true or false", v)
}

// oneOf returns the string argument name, which must be one of allowed.
func (c command) oneOf(name string, allowed ...string) (string, error) {
	s, err := c.str(name, true)
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", fmt.Errorf("%q must be one of %s, got %q", name, strings.Join(allowed, ", "), s)
}

// images returns the "images" argument: image blocks {"type":"image","data","mimeType"}.
func (c command) images() ([]codec.Content, error) {
	v := c.v.Get("images")
	if !v.Exists() || v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsArray() {
		return nil, argError("images", "an array of image blocks", v)
	}
	blocks, err := codec.ParseContents([]byte(v.Raw))
	if err != nil {
		return nil, fmt.Errorf(`"images": %v`, strings.TrimPrefix(err.Error(), "codec: "))
	}
	for i, b := range blocks {
		img, ok := b.(*codec.ImageContent)
		if !ok {
			return nil, fmt.Errorf(`"images"[%d]: expected an image block, got %q`, i, b.ContentType())
		}
		if img.Data == "" || img.MimeType == "" {
			return nil, fmt.Errorf(`"images"[%d]: an image needs "data" (base64) and "mimeType"`, i)
		}
	}
	return blocks, nil
}

// appendResponse encodes a response line: {"id"?,"type":"response","command","success",
// "data"?|"error"?}. data is encoded JSON (nil: no data member).
func appendResponse(dst []byte, c command, name string, data []byte, err error) []byte {
	dst = append(dst, '{')
	if c.hasID {
		dst = append(dst, `"id":`...)
		dst = codec.AppendString(dst, c.id)
		dst = append(dst, ',')
	}
	dst = append(dst, `"type":"response","command":`...)
	dst = codec.AppendString(dst, name)
	if err != nil {
		dst = append(dst, `,"success":false,"error":`...)
		dst = codec.AppendString(dst, err.Error())
		return append(dst, '}')
	}
	dst = append(dst, `,"success":true`...)
	if data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, data...)
	}
	return append(dst, '}')
}

// marshal encodes a response's data the way the stream does: no HTML escaping.
func marshal(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // our own data types always encode
	}
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

// appendMessages encodes messages as {"messages":[…]} with the stream's message encoder.
func appendMessages(dst []byte, msgs []codec.Message) []byte {
	dst = append(dst, `{"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = m.AppendJSON(dst)
	}
	return append(dst, ']', '}')
}
