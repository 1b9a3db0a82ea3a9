package outputschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T, schema string) *Schema {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkAll runs each answer through s.Check: a value to expect, or "" and a problem.
func checkAll(t *testing.T, s *Schema, cases []struct{ answer, value, problem string }) {
	t.Helper()
	for _, c := range cases {
		v, p := s.Check(c.answer)
		if v != c.value || p != c.problem {
			t.Errorf("Check(%q) = %q, %q; want %q, %q", c.answer, v, p, c.value, c.problem)
		}
	}
}

func TestCheck(t *testing.T) {
	s := load(t, `{"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"}},"required":["ok"],"additionalProperties":false}`)
	checkAll(t, s, []struct{ answer, value, problem string }{
		{`{"ok": true}`, `{"ok":true}`, ""},
		{"All good.\n\n```json\n{\"ok\": false, \"n\": 3}\n```", `{"ok":false,"n":3}`, ""},
		{"Result: {\"ok\": true} — done", `{"ok":true}`, ""},
		{`{"n": 1}`, "", `validating root: required: missing properties: ["ok"]`},
		{`{"ok": "yes"}`, "", `validating root: validating /properties/ok: type: yes has type "string", want "boolean"`},
		{`{"ok": true, "extra": 1}`, "", `validating root: unexpected additional properties ["extra"]`},
		{`{"ok": true, "n": 1.5}`, "", `validating root: validating /properties/n: type: 1.5 has type "number", want "integer"`},
		{"no json here", "", "the answer holds no JSON value"},
	})
}

// A failed anyOf names each branch's problem, on the one line an error message has.
func TestCheckProblemIsOneLine(t *testing.T) {
	s := load(t, `{"anyOf":[{"type":"string"},{"type":"object","required":["a"]}]}`)
	_, p := s.Check(`{"b": 1}`)
	if strings.Contains(p, "\n") || !strings.Contains(p, `validating /anyOf/0: type:`) ||
		!strings.Contains(p, `; validating /anyOf/1: required: missing properties: ["a"]`) {
		t.Errorf("problem %q", p)
	}
}

func TestLoadRejectsBadSchemas(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct{ text, want string }{
		"notjson.json": {"{", "notjson.json is not JSON: unexpected end of JSON input"},
		"bad.json":     {`{"type": 12}`, `bad.json is not a valid JSON Schema: invalid value for "type"`},
		"badref.json":  {`{"$ref": "#/$defs/missing"}`, "badref.json is not a valid JSON Schema: "},
		"nofile.json":  {`{"$ref": "absent.json"}`, "nofile.json is not a valid JSON Schema: loading file://"},
		"remote.json":  {`{"$ref": "https://example.com/s.json"}`, "only files can be referred to, not https://example.com/s.json"},
		"typo.json": {`{"type": "object", "properties": {"a/b": {"type": "array", "items": {"type": ["str", "null"]}}}}`,
			`typo.json is not a valid JSON Schema: at /properties/a~1b/items: type "str" is not one of array, boolean, integer, null, number, object, string`},
		"typo-root.json": {`{"type": "int"}`, `typo-root.json is not a valid JSON Schema: at root: type "int" is not one of`},
		"typo-tuple.json": {`{"$schema": "http://json-schema.org/draft-07/schema", "items": [{"type": "string"}, {"type": "bool"}]}`,
			`typo-tuple.json is not a valid JSON Schema: at /items/1: type "bool" is not one of`},
		"typo-ref.json": {`{"$ref": "typo-root.json"}`, `typo-root.json is not a valid JSON Schema: at root: type "int"`},
		"draft4.json": {`{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}`,
			`draft4.json declares "$schema": "http://json-schema.org/draft-04/schema#"; the drafts supported are draft-07 and 2020-12`},
		"draft2019.json": {`{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object"}`,
			`draft2019.json declares "$schema": "https://json-schema.org/draft/2019-09/schema"; the drafts supported are`},
	}
	// All files exist before any is loaded: typo-ref.json refers to typo-root.json.
	for name, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range cases {
		_, err := Load(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s) = %v; want an error with %q", name, err, c.want)
		}
	}
}

// The drafts a schema may declare, in the spellings in use, each validated by its own rules:
// an array of item schemas is a tuple in draft-07 and not a schema at all in 2020-12, where
// prefixItems is the tuple.
func TestDrafts(t *testing.T) {
	for _, declared := range []string{
		"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
		"https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema",
	} {
		s := load(t, `{"$schema": "`+declared+`", "type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}`)
		checkAll(t, s, []struct{ answer, value, problem string }{
			{`["a", 1]`, `["a",1]`, ""},
			{`["a", "b"]`, "", `validating root: validating /items/1: type: b has type "string", want "integer"`},
			{`["a", 1, 2]`, "", `validating root: validating /additionalItems: not: validated against <anonymous schema>`},
		})
	}
	for _, declared := range []string{"", "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"} {
		schema := `{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}`
		if declared != "" {
			schema = `{"$schema": "` + declared + `", ` + schema[1:]
		}
		checkAll(t, load(t, schema), []struct{ answer, value, problem string }{
			{`["a", 1]`, `["a",1]`, ""},
			{`["a", "b"]`, "", `validating root: validating /prefixItems/1: type: b has type "string", want "integer"`},
			{`["a", 1, 2]`, "", `validating root: validating /items: not: validated against <anonymous schema>`},
		})
	}
}

// References reach the schema's own definitions ($defs, and definitions in draft-07) and
// other files, by paths relative to the schema's.
func TestReferences(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "common"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"common/id.json": `{"$defs": {"id": {"type": "string", "pattern": "^[a-z]+-[0-9]+$"}}}`,
		"s.json": `{"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/item"}}},
			"$defs": {"item": {"type": "object", "required": ["id"], "properties": {"id": {"$ref": "common/id.json#/$defs/id"}}}}}`,
		"s7.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": {"$ref": "#/definitions/n"},
			"definitions": {"n": {"type": "integer", "minimum": 1}}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkAll(t, s, []struct{ answer, value, problem string }{
		{`{"items": [{"id": "ab-1"}, {"id": "c-22"}]}`, `{"items":[{"id":"ab-1"},{"id":"c-22"}]}`, ""},
		{`{"items": [{"id": "ab-1"}, {}]}`, "",
			`validating root: validating /properties/items: validating /properties/items/items: validating /$defs/item: required: missing properties: ["id"]`},
		{`{"items": [{"id": "ab"}]}`, "",
			`validating root: validating /properties/items: validating /properties/items/items: validating /$defs/item: validating /$defs/item/properties/id: validating /$defs/id: pattern: "ab" does not match regular expression "^[a-z]+-[0-9]+$"`},
	})
	s7, err := Load(filepath.Join(dir, "s7.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkAll(t, s7, []struct{ answer, value, problem string }{
		{`[1, 2]`, `[1,2]`, ""},
		{`[1, 0]`, "", `validating root: validating /items: validating /definitions/n: minimum: 0/1 is less than 1.000000`}, // the validator prints the number as a fraction
	})
}

// format is an annotation, not checked, in every draft (docs/ci.md says so): the model is
// shown it in the schema, and pattern is what checks a string's shape.
func TestFormatIsNotChecked(t *testing.T) {
	for _, declared := range []string{"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"} {
		s := load(t, `{"$schema": "`+declared+`", "type": "object", "properties": {"day": {"type": "string", "format": "date"}}}`)
		if v, p := s.Check(`{"day": "someday"}`); p != "" || v != `{"day":"someday"}` {
			t.Errorf("%s: Check = %q, %q; want the value back", declared, v, p)
		}
	}
}
