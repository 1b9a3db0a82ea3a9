package rpc

import (
	"fmt"
	"strings"

	"github.com/basecontext/base-context/codec"
)

// responseLine is a response, as appendResponse writes it. Its "command" is the union's
// discriminator; data is of the command's declared shape.
type responseLine struct {
	ID      string `json:"id,omitempty" doc:"the command's id, as a string"`
	Type    string `json:"type" const:"\"response\""`
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty" doc:"when success is false: what went wrong, naming the line or argument"`
	Data    any    `json:"data,omitempty"`
}

// commandLine is what every command may carry besides its arguments.
type commandLine struct {
	ID any `json:"id,omitempty" doc:"repeated in the response; a string (a number is accepted, and repeated as a string)"`
}

// dialogRequest is an extension_ui_request, as appendDialog writes it.
type dialogRequest struct {
	Type        string   `json:"type" const:"\"extension_ui_request\""`
	ID          string   `json:"id" doc:"the id the extension_ui_response names"`
	Method      string   `json:"method" enum:"confirm,select,input"`
	Title       string   `json:"title" doc:"the question"`
	Message     string   `json:"message,omitempty" doc:"confirm: more detail"`
	Options     []string `json:"options,omitempty" doc:"select: the choices"`
	Placeholder string   `json:"placeholder,omitempty" doc:"input: a hint shown in the empty field"`
	Timeout     int64    `json:"timeout" doc:"milliseconds the client has to answer; unanswered, the dialog is a no"`
}

// The error responses that answer no command: a line that is not a JSON object ("parse"),
// a command without a string "type", or with "type" twice ("unknown").
var errorOnly = []struct{ name, doc string }{
	{"parse", "A line that is not a JSON object."},
	{"unknown", "A command without a string type, or with the key type twice."},
}

// unknownCommandResponse is the error response to a command of a type the server does
// not know: its "command" repeats that type, as the upstream's does.
type unknownCommandResponse struct {
	ID      string `json:"id,omitempty" doc:"the command's id, as a string"`
	Type    string `json:"type" const:"\"response\""`
	Command string `json:"command" doc:"the command's type, which no command has"`
	Success bool   `json:"success" const:"false"`
	Error   string `json:"error" doc:"unknown command type …"`
}

// Direction chooses the lines a schema of rpc mode describes.
type Direction string

const (
	Both     Direction = ""         // a line either way: the combined document
	Commands Direction = "commands" // the lines a client writes
	Output   Direction = "output"   // the lines a client reads
)

// ParseDirection reads a direction as `schema --rpc=…` takes it: commands or output.
func ParseDirection(name string) (Direction, error) {
	for _, d := range []Direction{Commands, Output} {
		if name == string(d) {
			return d, nil
		}
	}
	return Both, fmt.Errorf("takes no value, or one of %s, %s (not %q)", Commands, Output, name)
}

// JSONSchema returns the JSON Schema (draft 2020-12) of a line of rpc mode either way.
func JSONSchema(deltas bool) []byte { return DirectionSchema(Both, deltas) }

// DirectionSchema returns the JSON Schema (draft 2020-12) of rpc mode's lines: the commands
// a client writes (Command), and what it reads: responses (Response), dialog requests
// (ExtensionUIRequest) and the events of the stream (Event, of the full form or, with
// deltas, of the delta form), made from the same declarations the server decodes commands
// by. A line is told apart by its "type": a command's type is one of the commands, a
// response's command one of the commands (or, with success false, any other type), and
// only the events are open (a type the schema does not know is an event).
func DirectionSchema(dir Direction, deltas bool) []byte {
	id := *codec.Describe((*commandLine)(nil)).Member("id")
	cmds := &codec.Union{Name: "Command", Key: "type", Closed: true, Doc: "One command line a client writes."}
	unknown := *codec.Describe((*unknownCommandResponse)(nil))
	unknown.Name, unknown.Doc = "UnknownCommandResponse", "The response to a command of a type no command has."
	resps := &codec.Union{Name: "Response", Key: "command", Closed: true, Otherwise: &unknown, Doc: "The response to a command."}
	envelope := codec.Describe((*responseLine)(nil))
	response := func(name, doc string, data *codec.Shape, null bool) *codec.Shape {
		v := &codec.Shape{Name: variantName(name) + "Response", Tag: name, Union: resps, Doc: doc}
		for _, m := range envelope.Members {
			if m.Key == "data" {
				if data == nil {
					continue
				}
				m.Kind, m.Shape, m.Nullable, m.Doc = codec.KindObject, data, null, "when success is true"
			}
			v.Members = append(v.Members, m)
		}
		return v
	}
	variants := append([]commandSpec(nil), commandList()...)
	variants = append(variants, commandSpec{name: dialogAnswerCommand, doc: "The answer to an extension_ui_request; it gets no response.",
		args: codec.Describe((*dialogAnswer)(nil))})
	for _, spec := range variants {
		v := &codec.Shape{Name: variantName(spec.name) + "Command", Tag: spec.name, Union: cmds, Doc: spec.doc}
		if spec.args == nil || spec.args.Member("id") == nil {
			v.Members = append(v.Members, id)
		}
		if spec.args != nil {
			v.Members = append(v.Members, spec.args.Members...)
		}
		cmds.Variants = append(cmds.Variants, v)
		if spec.name != dialogAnswerCommand {
			resps.Variants = append(resps.Variants, response(spec.name, "The response to "+spec.name+".", spec.data, spec.dataNull))
		}
	}
	for _, e := range errorOnly {
		resps.Variants = append(resps.Variants, response(e.name, e.doc, nil, false))
	}
	dialog := *codec.Describe((*dialogRequest)(nil))
	dialog.Name, dialog.Doc = "ExtensionUIRequest", "A question for the client: answered by an extension_ui_response command."
	form := "full form"
	if deltas {
		form = "delta form (--json-deltas)"
	}
	// What a client reads is told apart by "type": an event is any line of another type.
	output := []codec.RootCase{{Tags: []string{"response"}, Def: "Response"}, {Tags: []string{"extension_ui_request"}, Def: "ExtensionUIRequest"}}
	var title, what string
	var root codec.Root
	switch dir {
	case Commands:
		title, what = "base-context rpc mode: one command", "One command line a client of `base-context --mode rpc` writes on its stdin (Command)."
		root = codec.Root{Otherwise: "Command"}
	case Output:
		title = "base-context rpc mode: one output line"
		what = "One line `base-context --mode rpc` writes on its stdout: a response (Response), a dialog request (ExtensionUIRequest) " +
			"or a line of the event stream (Event, " + form + ")."
		// A command is not an event of a type the reader does not know.
		root = codec.Root{Key: "type", Cases: append([]codec.RootCase{{Tags: cmds.Tags()}}, output...), Otherwise: "Event"}
	default:
		title = "base-context rpc mode: one line"
		what = "One line of `base-context --mode rpc`: a command on stdin (Command), or on stdout a response (Response), " +
			"a dialog request (ExtensionUIRequest) or a line of the event stream (Event, " + form + ")."
		root = codec.Root{Key: "type", Cases: append([]codec.RootCase{{Tags: cmds.Tags(), Def: "Command"}}, output...), Otherwise: "Event"}
	}
	return codec.SchemaDocument(title, what+" Generated from the declarations the server decodes commands by, and the codec "+
		"package's description of the stream, by `base-context schema --rpc"+direction(dir)+"`. docs/rpc.md describes the protocol.",
		deltas, []*codec.Union{cmds, resps}, []*codec.Shape{&dialog}, root)
}

// direction is dir as the flag writes it: "=commands", or "" for both.
func direction(dir Direction) string {
	if dir == Both {
		return ""
	}
	return "=" + string(dir)
}

// variantName is the schema's name of a command: "get_state" is "GetState".
func variantName(command string) string {
	var b strings.Builder
	for _, w := range strings.Split(command, "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}
