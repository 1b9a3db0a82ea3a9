package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Each value a file takes becomes a flag's value and back: FileValue inverts FlagValue.
func TestFlagValueRoundTrip(t *testing.T) {
	for _, c := range []struct {
		key    string
		value  any
		target any
	}{
		{"tools", []string{"read", "bash"}, ""},
		{"compaction.auto", false, ""},
		{"retry.baseDelay", Duration(2 * time.Second), time.Duration(0)},
		{"limits.maxTurns", 5, 0},
		{"permissions.deny", []string{"bash(rm *)"}, []string(nil)},
	} {
		rv, err := FlagValue(c.value, reflect.TypeOf(c.target), "")
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		back := FileValue(c.key, rv.Interface())
		want := c.value
		if d, ok := want.(Duration); ok {
			want = time.Duration(d).String()
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%s: %#v became %#v, back %#v", c.key, c.value, rv.Interface(), back)
		}
	}
	if _, err := FlagValue("huge", reflect.TypeOf(""), "off,low"); err == nil || err.Error() != `"huge" is not one of off, low` {
		t.Errorf("enum: %v", err)
	}
}

// A missing file sets nothing; a bad rule is located by file, line and key.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	d, err := Read(filepath.Join(dir, "none", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := d.Value("model"); ok {
		t.Error("a missing file sets the model")
	}
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte("{\n  \"model\": \"a/b\",\n  \"permissions\": {\n    \"deny\": [\"bash(rm *\"]}}\n"), 0o644)
	if d, err = Read(path); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := d.Value("model"); !ok || err != nil || v != "a/b" {
		t.Errorf("model %v %v %v", v, ok, err)
	}
	_, _, err = d.Value("permissions.deny")
	if err == nil || !strings.HasPrefix(err.Error(), path+": line 4: permissions.deny: ") {
		t.Errorf("bad rule: %v", err)
	}
	os.WriteFile(path, []byte(`{"colour": "red"}`), 0o644)
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), `unknown field "colour"`) {
		t.Errorf("unknown key: %v", err)
	}
}
