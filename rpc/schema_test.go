package rpc

import (
	"errors"
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
