package rpc

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeCommand(t *testing.T) {
	for _, c := range []struct {
		line, id, typ, err string
		parse              bool
	}{
		{line: `{"id":"a","type":"get_state"}`, id: "a", typ: "get_state"},
		{line: `{"type":"abort","id":12}`, id: "12", typ: "abort"},
		{line: `{"type":"abort"}`, typ: "abort"},
		{line: `{"id":"b"}`, id: "b", err: `no "type"`},
		{line: `{"id":"c","type":3}`, id: "c", err: `"type" must be a string, got a number`},
		{line: `{"type":"prompt","message":"a` + "\u2028" + `b"}`, typ: "prompt"},
		{line: `{"type":`, parse: true, err: "unexpected end of JSON input"},
		{line: `"prompt"`, parse: true, err: "expected a JSON object, got a string"},
		{line: ``, parse: true},
		{line: `{"id":"d","type":"bash","type":"get_state","command":"x"}`, id: "d", err: `the key "type" twice`},
		{line: `{"id":"d","type":"bash","command":"x","command":"y"}`, id: "d", typ: "bash", err: `the key "command" twice`},
		{line: `{"id":"a","id":"b","type":"abort"}`, typ: "abort", err: `the key "id" twice`},
		{line: `{"type":"prompt","message":"x","images":[{"type":"image","data":"aGk=","mimeType":"a/b"},{"data":"","data":""}]}`,
			typ: "prompt", err: `the key "images[1].data" twice`},
		{line: `{"type":"prompt","message":"x","images":[{"type":"image"},{"type":"image"}]}`, typ: "prompt"},
		// A lone surrogate names no character: readers replace, refuse or keep it.
		{line: `{"id":"s","type":"prompt","message":"x\ud800"}`, id: "s", typ: "prompt", err: `ambiguous: message: lone surrogate`},
	} {
		cmd, err := decodeCommand([]byte(c.line))
		var pe *parseError
		if errors.As(err, &pe) != c.parse {
			t.Errorf("%s: parse error %v, want %v", c.line, err, c.parse)
			continue
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: error %v, want %q", c.line, err, c.err)
		}
		if c.err == "" && !c.parse && err != nil {
			t.Errorf("%s: %v", c.line, err)
		}
		if !c.parse && (cmd.id != c.id || cmd.hasID != (c.id != "") || cmd.typ != c.typ) {
			t.Errorf("%s: decoded id %q type %q", c.line, cmd.id, cmd.typ)
		}
	}
}

func TestAppendResponse(t *testing.T) {
	withID, _ := decodeCommand([]byte(`{"id":"r\"1","type":"get_state"}`))
	noID, _ := decodeCommand([]byte(`{"type":"abort"}`))
	for _, c := range []struct {
		got, want string
	}{
		{string(appendResponse(nil, withID, "get_state", []byte(`{"a":1}`), nil)),
			`{"id":"r\"1","type":"response","command":"get_state","success":true,"data":{"a":1}}`},
		{string(appendResponse(nil, noID, "abort", nil, nil)), `{"type":"response","command":"abort","success":true}`},
		{string(appendResponse(nil, withID, "set_model", []byte(`{}`), errors.New("Model not found: x/y"))),
			`{"id":"r\"1","type":"response","command":"set_model","success":false,"error":"Model not found: x/y"}`},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}

func TestImagesArgument(t *testing.T) {
	cmd, _ := decodeCommand([]byte(`{"type":"prompt","message":"see","images":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`))
	msg, err := cmd.userMessage()
	if err != nil || len(msg.Blocks) != 2 || msg.Blocks[1].ContentType() != "image" {
		t.Fatalf("userMessage: %+v %v", msg, err)
	}
	for line, want := range map[string]string{
		`{"type":"prompt","message":"x","images":{}}`:                                  `"images" must be an array of image blocks`,
		`{"type":"prompt","message":"x","images":[{"type":"image","mimeType":"a/b"}]}`: `needs "data"`,
	} {
		cmd, _ := decodeCommand([]byte(line))
		if _, err := cmd.userMessage(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}
