// Package rpc is `--mode rpc`: a client drives the agent with one JSON command per line on
// stdin and reads responses, events and dialog requests as JSON lines on stdout. The
// protocol is the upstream coding agent's (its RpcClient works unchanged); the events are
// exactly those of `--mode json`, written through the same stage chain.
package rpc

import (
	"encoding/json"
	"fmt"
	"strconv"
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
	// A key written twice means different things to different readers (gjson takes the
	// first, jq the last): {"type":"bash","type":"get_state"} must not run either.
	dup, ambiguous := ambiguity(line)
	if id := v.Get("id"); id.Exists() && dup != "id" {
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
	if dup == "type" {
		return c, fmt.Errorf(`the command has the key "type" twice`)
	}
	c.typ = t.Str
	if dup != "" {
		return c, fmt.Errorf("the command has the key %q twice", dup)
	}
	if ambiguous != "" {
		return c, fmt.Errorf("the command is ambiguous: %s", ambiguous)
	}
	return c, nil
}

// ambiguity reads line (valid JSON) as codec.EachAmbiguity does: dup is the path
// (images[0].data) of the first key an object holds twice, other the first other ambiguity
// (a lone surrogate), "" when there is none.
func ambiguity(line []byte) (dup, other string) {
	codec.EachAmbiguity(line, func(a codec.Ambiguity) bool {
		key, isDup := strings.CutPrefix(a.What, "duplicate key ")
		if !isDup {
			other = a.String()
			return false
		}
		if k, err := strconv.Unquote(key); err == nil {
			key = k
		}
		if dup = key; a.Path != "" {
			dup = a.Path + "." + key
		}
		return false
	})
	return dup, other
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

// userMessage decodes the user message of a prompt, steer or follow-up command.
func (c command) userMessage() (*codec.UserMessage, error) {
	a, err := decodeArgs[messageArgs](c.v)
	if err != nil {
		return nil, err
	}
	return newUserMessage(a.Message, a.Images)
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
