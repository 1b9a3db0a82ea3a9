package rpc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/internal/schematest"
	"github.com/google/jsonschema-go/jsonschema"
)

// compileDef compiles one definition of the rpc schema.
func compileDef(t *testing.T, def string) *jsonschema.Resolved {
	t.Helper()
	s, err := schematest.Resolve(JSONSchema(false), def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func valid(t *testing.T, s *jsonschema.Resolved, line string) error {
	t.Helper()
	return schematest.Validate(s, []byte(line))
}

// The lines this package's tests write and read match the schema: dialog requests of each
// method, responses, the clients' answers.
func TestLinesOfTheTestsMatchTheSchema(t *testing.T) {
	dialog, response, commandDef := compileDef(t, "ExtensionUIRequest"), compileDef(t, "Response"), compileDef(t, "Command")
	for _, d := range []Dialog{
		{Method: DialogConfirm, Title: "Run it?", Message: "rm -rf build"},
		{Method: DialogSelect, Title: "Which?", Options: []string{"a", "b"}},
		{Method: DialogInput, Title: "Name?", Placeholder: "a name"},
		{Method: DialogInput, Title: "Name?"},
	} {
		line := string(appendDialog(nil, "d1", d, time.Second))
		if err := valid(t, dialog, line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	withID, _ := decodeCommand([]byte(`{"id":"r1","type":"get_state"}`))
	noID, _ := decodeCommand([]byte(`{"type":"abort"}`))
	for _, line := range []string{
		string(appendResponse(nil, withID, "get_state", marshal(stateData{Model: &modelData{Input: []string{}}}), nil)),
		string(appendResponse(nil, noID, "abort", nil, nil)),
		string(appendResponse(nil, withID, "set_model", nil, errors.New("Model not found: x/y"))),
		string(appendResponse(nil, withID, "cycle_model", []byte("null"), nil)),
		string(appendResponse(nil, withID, "get_last_assistant_text", marshal(textData{}), nil)),
		string(appendResponse(nil, command{}, "parse", nil, errors.New("Failed to parse command on line 1: x"))),
	} {
		if err := valid(t, response, line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	// A response whose data is not the command's is not valid.
	if valid(t, response, string(appendResponse(nil, withID, "get_state", []byte(`{"model":1}`), nil))) == nil {
		t.Error("the schema takes any data of get_state")
	}
	for _, line := range []string{
		`{"type":"extension_ui_response","id":"x","confirmed":true}`,
		`{"type":"extension_ui_response","id":"x","value":"Block"}`,
		`{"type":"extension_ui_response","id":"x","cancelled":true,"confirmed":true}`,
		`{"id":"a","type":"get_state"}`,
		`{"type":"abort","id":12}`,
		`{"type":"prompt","message":"see","images":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`,
	} {
		if err := valid(t, commandDef, line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	for _, line := range []string{
		`{"id":"b"}`,
		`{"id":"c","type":3}`,
		`{"type":"extension_ui_response","confirmed":true}`,
		`{"type":"extension_ui_response","id":"x","confirmed":"yes"}`,
		`{"type":"prompt","message":"x","images":{}}`,
	} {
		if valid(t, commandDef, line) == nil {
			t.Errorf("the schema takes %s", line)
		}
	}
}

// The roots of the documents tell a line apart by its type: a command's type is a closed
// set, a response's command is a known command whose data is checked (or, failed, any other
// type), and only a line of another type is an event, open.
func TestSchemaRoots(t *testing.T) {
	root := func(dir Direction) *jsonschema.Resolved {
		s, err := schematest.Resolve(DirectionSchema(dir, false), "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	both, commands, output := root(Both), root(Commands), root(Output)
	withID, _ := decodeCommand([]byte(`{"id":"r1","type":"get_state"}`))
	state := string(appendResponse(nil, withID, "get_state", marshal(stateData{Model: &modelData{Input: []string{}}}), nil))
	badState := strings.Replace(state, `"isStreaming":false`, `"isStreaming":"no"`, 1)
	if badState == state {
		t.Fatalf("no isStreaming in %s", state)
	}
	unknown, _ := decodeCommand([]byte(`{"id":"u","type":"no_such_command"}`))
	for _, c := range []struct {
		line               string
		both, cmds, output bool // valid against each root
	}{
		{`{"type":"prompt","message":"hi"}`, true, true, false},
		{`{"type":"prompt"}`, false, false, false},
		{`{"type":"extension_ui_response","id":"x","confirmed":true}`, true, true, false},
		{`{"type":"no_such_command"}`, true, false, true}, // a new event, as far as a reader knows
		{state, true, false, true},
		{badState, false, false, false},
		{`{"type":"response","command":"get_state","success":true,"data":{"model":1}}`, false, false, false},
		{string(appendResponse(nil, unknown, "no_such_command", nil, errors.New(`unknown command type "no_such_command"`))), true, false, true},
		{`{"type":"response","command":"no_such_command","success":true}`, false, false, false},
		{string(appendDialog(nil, "d1", Dialog{Method: DialogConfirm, Title: "Run it?"}, time.Second)), true, false, true},
		{`{"type":"extension_ui_request","id":"d1"}`, false, false, false},
		{`{"type":"agent_start"}`, true, false, true},
		{`{"type":"message_end"}`, false, false, false},
		{`{"type":"some_future_event","x":1}`, true, false, true},
		{`{"id":"b"}`, false, false, false},
	} {
		for _, r := range []struct {
			name  string
			s     *jsonschema.Resolved
			valid bool
		}{{"--rpc", both, c.both}, {"--rpc=commands", commands, c.cmds}, {"--rpc=output", output, c.output}} {
			if err := valid(t, r.s, c.line); (err == nil) != r.valid {
				t.Errorf("%s: %s: valid %v, want %v (%v)", r.name, c.line, err == nil, r.valid, err)
			}
		}
	}
}
