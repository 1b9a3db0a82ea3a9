package outputschema

import (
	"os"
	"path/filepath"
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

func TestCheck(t *testing.T) {
	s := load(t, `{"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"}},"required":["ok"],"additionalProperties":false}`)
	for _, c := range []struct{ answer, value, problem string }{
		{`{"ok": true}`, `{"ok":true}`, ""},
		{"All good.\n\n```json\n{\"ok\": false, \"n\": 3}\n```", `{"ok":false,"n":3}`, ""},
		{"Result: {\"ok\": true} — done", `{"ok":true}`, ""},
		{`{"n": 1}`, "", "at '': missing property 'ok'"},
		{`{"ok": "yes"}`, "", "at '/ok': got string, want boolean"},
		{"no json here", "", "the answer holds no JSON value"},
	} {
		v, p := s.Check(c.answer)
		if v != c.value || p != c.problem {
			t.Errorf("Check(%q) = %q, %q; want %q, %q", c.answer, v, p, c.value, c.problem)
		}
	}
}

func TestLoadRejectsBadSchemas(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"notjson.json": "{", "bad.json": `{"type": 12}`} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		if _, err := Load(path); err == nil {
			t.Errorf("%s loaded", name)
		}
	}
}
