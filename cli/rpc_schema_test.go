package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/basecontext/base-context/internal/schematest"
	"github.com/basecontext/base-context/rpc"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tidwall/gjson"
)

// The JSON Schema of rpc mode (`base-context schema --rpc`) against what the server reads
// and writes: the examples of docs/rpc.md, a session that sends every command, the upstream's
// Python example, and commands the server refuses.

// rpcSchemas compiles the rpc schema's definitions that a line may be, and the roots of
// the documents: either way (line), `--rpc=commands` and `--rpc=output`.
type rpcSchemas struct {
	command, response, dialog, event *jsonschema.Resolved
	line, commands, outputs          *jsonschema.Resolved
}

func compileRPCSchema(t *testing.T) rpcSchemas {
	t.Helper()
	compile := func(def string) *jsonschema.Resolved {
		s, err := schematest.Resolve(rpc.JSONSchema(false), def)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	root := func(dir rpc.Direction) *jsonschema.Resolved {
		s, err := schematest.Resolve(rpc.DirectionSchema(dir, false), "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return rpcSchemas{command: compile("Command"), response: compile("Response"),
		dialog: compile("ExtensionUIRequest"), event: compile("Event"), line: compile(""),
		commands: root(rpc.Commands), outputs: root(rpc.Output)}
}

// commandProblem reports the problem of a command line against the Command definition, ""
// when it is valid. The root of --rpc=commands agrees with it, and so does the combined
// root for a line whose type is a command's (a line of another type is an event there).
func (s rpcSchemas) commandProblem(t *testing.T, line string) string {
	t.Helper()
	problem := validate(t, s.command, line)
	if (validate(t, s.commands, line) == "") != (problem == "") {
		t.Errorf("the root of --rpc=commands and the Command definition disagree on %s (%q)", line, problem)
	}
	if slices.Contains(commandTypes(t), gjson.Get(line, "type").String()) && (validate(t, s.line, line) == "") != (problem == "") {
		t.Errorf("the root of --rpc and the Command definition disagree on %s (%q)", line, problem)
	}
	return problem
}

// validate reports the problem of line against s, "" when it is valid.
func validate(t *testing.T, s *jsonschema.Resolved, line string) string {
	t.Helper()
	if err := schematest.Validate(s, []byte(line)); err != nil {
		return err.Error()
	}
	return ""
}

// output checks a line the server wrote against the definition of its type.
func (s rpcSchemas) output(t *testing.T, line string) {
	t.Helper()
	def := s.event
	switch gjson.Get(line, "type").Str {
	case "response":
		def = s.response
	case "extension_ui_request":
		def = s.dialog
	}
	if problem := validate(t, def, line); problem != "" {
		t.Errorf("the server wrote a line its schema refuses: %s\n%s", line, problem)
	}
	if problem := validate(t, s.line, line); problem != "" {
		t.Errorf("a line the document's root refuses: %s\n%s", line, problem)
	}
	if problem := validate(t, s.outputs, line); problem != "" {
		t.Errorf("a line the root of --rpc=output refuses: %s\n%s", line, problem)
	}
}

// readmeCommands are the example commands of the table of rpc commands in docs/rpc.md.
func readmeCommands(t *testing.T) map[string]string {
	page, err := os.ReadFile("../docs/rpc.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(page), "\n## Commands\n")
	section, _, _ = strings.Cut(section, "\n## ")
	examples := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| `(\\{.*?\\})` \\|").FindAllStringSubmatch(section, -1) {
		examples[m[1]] = m[2]
	}
	return examples
}

func commandTypes(t *testing.T) []string {
	var types []string
	for _, v := range gjson.GetBytes(rpc.JSONSchema(false), `$defs.Command.properties.type.enum`).Array() {
		types = append(types, v.Str)
	}
	if len(types) < 10 {
		t.Fatalf("the schema lists %d command types", len(types))
	}
	return types
}

// Every example of the table of docs/rpc.md is a valid command of the type its row names, and
// every command the schema knows has a row.
func TestRPCSchemaREADMEExamples(t *testing.T) {
	s := compileRPCSchema(t)
	examples := readmeCommands(t)
	for _, typ := range commandTypes(t) {
		ex, ok := examples[typ]
		if typ == "extension_ui_response" {
			continue // the Dialogs paragraph shows it
		}
		if !ok {
			t.Errorf("the table of docs/rpc.md has no example of %s", typ)
			continue
		}
		if got := gjson.Get(ex, "type").Str; got != typ {
			t.Errorf("the example of %s is a %s command", typ, got)
		}
		if problem := s.commandProblem(t, ex); problem != "" {
			t.Errorf("docs/rpc.md example %s: %s", ex, problem)
		}
	}
}

// A session that sends every command: each command is valid, each line the server writes
// (responses, events, a dialog request) too.
func TestRPCSchemaOfEveryCommandAndResponse(t *testing.T) {
	s := compileRPCSchema(t)
	p := startRPC(t, "", "--permission-mode", "ask")
	first := gjson.Parse(p.next()).Get("id").Str
	sent := map[string]bool{}
	send := func(cmd map[string]any) {
		b, _ := json.Marshal(cmd)
		if problem := s.commandProblem(t, string(b)); problem != "" {
			t.Errorf("a valid command the schema refuses: %s\n%s", b, problem)
		}
		sent[cmd["type"].(string)] = true
		p.send(string(b))
	}
	// wait reads up to the line match says is it, answering the dialog requests on the way.
	wait := func(match func(gjson.Result) bool) gjson.Result {
		return p.until(func(v gjson.Result) bool {
			if v.Get("type").Str == "extension_ui_request" {
				send(map[string]any{"type": "extension_ui_response", "id": v.Get("id").Str, "confirmed": true})
			}
			return match(v)
		})
	}
	call := func(id string, cmd map[string]any) gjson.Result {
		cmd["id"] = id
		send(cmd)
		return wait(func(v gjson.Result) bool { return v.Get("type").Str == "response" && v.Get("id").Str == id })
	}
	run := func(id string, cmd map[string]any) {
		if r := call(id, cmd); !r.Get("success").Bool() {
			t.Fatalf("%v: %s", cmd, r.Raw)
		}
		wait(func(v gjson.Result) bool { return v.Get("type").Str == "agent_end" })
	}
	for i, cmd := range []map[string]any{
		{"type": "get_state"}, {"type": "get_messages"}, {"type": "get_last_assistant_text"}, {"type": "get_available_models"},
		{"type": "set_model", "provider": "script", "modelId": "default"}, {"type": "cycle_model"},
		{"type": "set_thinking_level", "level": "high"}, {"type": "cycle_thinking_level"},
		{"type": "set_steering_mode", "mode": "one-at-a-time"}, {"type": "set_follow_up_mode", "mode": "all"},
		{"type": "set_auto_compaction", "enabled": false}, {"type": "set_auto_retry", "enabled": true},
		{"type": "abort"}, {"type": "abort_retry"}, {"type": "abort_bash"}, {"type": "get_commands"}, {"type": "export_html"},
		{"type": "set_sandbox", "mode": "off"},
	} {
		call(string(rune('a'+i)), cmd)
	}
	run("p", map[string]any{"type": "prompt", "message": "List files",
		"images": []map[string]any{{"type": "image", "data": "aGk=", "mimeType": "image/png"}}})
	run("st", map[string]any{"type": "steer", "message": "Once more"})
	run("fu", map[string]any{"type": "follow_up", "message": "And again"})
	for i, cmd := range []map[string]any{
		{"type": "bash", "command": "echo hi; exit 2"},
		{"type": "get_session_stats"},
		{"type": "get_last_assistant_text"},
		{"type": "set_session_name", "name": "schema"},
		{"type": "compact", "customInstructions": "keep the listing"},
	} {
		call("m"+string(rune('a'+i)), cmd)
	}
	forks := call("fm", map[string]any{"type": "get_fork_messages"}).Get("data.messages").Array()
	if len(forks) == 0 {
		t.Fatal("no fork messages")
	}
	// In this order: switch_session goes back to the first session from the last.
	for i, cmd := range []map[string]any{
		{"type": "fork", "entryId": forks[0].Get("entryId").Str},
		{"type": "clone"},
		{"type": "new_session", "parentSession": first},
		{"type": "switch_session", "sessionPath": first},
	} {
		if r := call("s"+string(rune('a'+i)), cmd); !r.Get("success").Bool() {
			t.Errorf("%v: %s", cmd, r.Raw)
		}
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d: %s", code, p.err.String())
	}
	for _, typ := range commandTypes(t) {
		if !sent[typ] {
			t.Errorf("the session sent no %s command", typ)
		}
	}
	var dialogs, responses int
	for _, line := range p.seen {
		s.output(t, line)
		switch gjson.Get(line, "type").Str {
		case "extension_ui_request":
			dialogs++
		case "response":
			responses++
		}
	}
	if dialogs == 0 || responses < len(sent) {
		t.Errorf("%d dialog requests, %d responses", dialogs, responses)
	}
}

// Commands the server refuses, for a bad argument or none, the schema refuses too; their
// responses are valid responses.
func TestRPCSchemaRefusesWhatTheServerRefuses(t *testing.T) {
	s := compileRPCSchema(t)
	p := startRPC(t, "", "--no-session")
	p.next()
	for i, line := range []string{
		`{"type":"prompt"}`,
		`{"type":"prompt","message":7}`,
		`{"type":"prompt","message":null}`,
		`{"type":"prompt","message":"x","images":{}}`,
		`{"type":"prompt","message":"x","images":[{"type":"text","text":"no"}]}`,
		`{"type":"prompt","message":"x","images":[{"type":"image","mimeType":"image/png"}]}`,
		`{"type":"prompt","message":"x","streamingBehavior":"later"}`,
		`{"type":"steer","message":["x"]}`,
		`{"type":"no_such_command"}`,
		`{"message":"no type"}`,
		`{"type":3}`,
		`{"type":"set_thinking_level","level":"huge"}`,
		`{"type":"set_steering_mode"}`,
		`{"type":"set_follow_up_mode","mode":"some"}`,
		`{"type":"set_auto_retry","enabled":"yes"}`,
		`{"type":"set_auto_compaction"}`,
		`{"type":"set_model","provider":"script"}`,
		`{"type":"bash","command":false}`,
		`{"type":"compact","customInstructions":1}`,
		`{"type":"new_session","parentSession":{}}`,
		`{"type":"switch_session"}`,
		`{"type":"fork"}`,
		`{"type":"set_session_name","name":1}`,
		`{"type":"set_sandbox","mode":"none"}`,
	} {
		if problem := s.commandProblem(t, line); problem == "" {
			t.Errorf("the schema accepts %s", line)
		}
		id := "bad" + string(rune('a'+i))
		p.send(`{"id":"` + id + `",` + line[1:])
		r := p.response(id)
		if r.Get("success").Bool() {
			t.Errorf("the server accepts %s: %s", line, r.Raw)
		}
		s.output(t, r.Raw)
	}
	p.send(`not json`)
	s.output(t, p.until(func(v gjson.Result) bool { return v.Get("command").Str == "parse" }).Raw)
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// The upstream document's Python client (rpc/testdata/example_client.py), through a wrapper
// that keeps what it sends and reads: every line is valid.
func TestRPCSchemaOfThePythonExample(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	runPythonExample(t, func(bin string) string { return "tee '" + in + "' | " + bin + " \"$@\" | tee '" + out + "'" })
	checkRecorded(t, in, out)
}

// The upstream's RpcClient (rpc/testdata/node), through a wrapper that keeps what it sends
// and reads: every line is valid.
func TestRPCSchemaOfTheUpstreamClient(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	bin, err := exec.LookPath("base-context")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in, out, pid := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "pid")
	// base-context between two tees; the signals the shim forwards go to it, and the
	// wrapper ends when the output's tee has written everything.
	wrapper := filepath.Join(dir, "base-context")
	script := "#!" + bash + "\n" +
		"{ tee '" + in + "' | '" + bin + "' \"$@\" & echo $! > '" + pid + "'; wait $!; echo $? > '" + pid + ".code'; } | tee '" + out + "' &\n" +
		"trap 'kill -s TERM $(cat \"" + pid + "\")' TERM\n" +
		"trap 'kill -s INT $(cat \"" + pid + "\")' INT\n" +
		"job=$!\n" +
		"until wait $job; [ $? -le 128 ] || ! kill -0 $job 2>/dev/null; do :; done\n" +
		"exit $(cat '" + pid + ".code')\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	runUpstreamClient(t, wrapper)
	checkRecorded(t, in, out)
}

// checkRecorded checks the commands recorded in the file in, and the lines the server wrote
// in out, against the schema.
func checkRecorded(t *testing.T, in, out string) {
	s := compileRPCSchema(t)
	for name, def := range map[string]func(string){
		in: func(line string) {
			if problem := s.commandProblem(t, line); problem != "" {
				t.Errorf("the example sent a command the schema refuses: %s\n%s", line, problem)
			}
		},
		out: func(line string) { s.output(t, line) },
	} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) == 0 || lines[0] == "" {
			t.Fatalf("%s is empty", name)
		}
		for _, line := range lines {
			def(line)
		}
		t.Logf("%s: %d lines", filepath.Base(name), len(lines))
	}
}
