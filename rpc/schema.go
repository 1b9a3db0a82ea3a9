package rpc

import (
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
// a command without a string "type" ("unknown").
var errorOnly = []struct{ name, doc string }{
	{"parse", "A line that is not a JSON object."},
	{"unknown", "A command without a string type."},
}

// JSONSchema returns the JSON Schema (draft 2020-12) of rpc mode's lines: the commands a
// client writes (Command), and what it reads: responses (Response), dialog requests
// (ExtensionUIRequest) and the events of the stream (Event, of the full form or, with
// deltas, of the delta form), made from the same declarations the server decodes commands by.
func JSONSchema(deltas bool) []byte {
	id := *codec.Describe((*commandLine)(nil)).Member("id")
	cmds := &codec.Union{Name: "Command", Key: "type", Closed: true, Doc: "One command line a client writes."}
	resps := &codec.Union{Name: "Response", Key: "command", Doc: "The response to a command."}
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
	return codec.SchemaDocument("base-context rpc mode: one line",
		"One line of `base-context --mode rpc`: a command on stdin (Command), or on stdout a response (Response), "+
			"a dialog request (ExtensionUIRequest) or a line of the event stream (Event, "+form+"). Generated from the "+
			"declarations the server decodes commands by, and the codec package's description of the stream, by "+
			"`base-context schema --rpc`. docs/rpc.md describes the protocol.",
		deltas, []*codec.Union{cmds, resps}, []*codec.Shape{&dialog}, []string{"Command", "Response", "ExtensionUIRequest", "Event"})
}

// variantName is the schema's name of a command: "get_state" is "GetState".
func variantName(command string) string {
	var b strings.Builder
	for _, w := range strings.Split(command, "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}
