package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLs(t *testing.T) {
	opts := testOptions(t)
	for _, f := range []string{"b.txt", "A.md", ".env", "src/x.go", ".config/y", "c"} {
		writeFile(t, opts.Cwd, f, "")
	}
	if err := os.Symlink("src", filepath.Join(opts.Cwd, "srclink")); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, opts, "ls", `{}`)
	if got, want := resultText(res), ".config/\n.env\nA.md\nb.txt\nc\nsrc/\nsrclink/"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if res.Details != nil {
		t.Errorf("details %s", res.Details)
	}
	if got := resultText(mustCall(t, opts, "ls", `{"path":"src"}`)); got != "x.go" {
		t.Errorf("ls src = %q", got)
	}
	os.Mkdir(filepath.Join(opts.Cwd, "empty"), 0o755)
	if got := resultText(mustCall(t, opts, "ls", `{"path":"empty"}`)); got != "(empty directory)" {
		t.Errorf("ls empty = %q", got)
	}
}

func TestLsLimitAndErrors(t *testing.T) {
	opts := testOptions(t)
	for i := range 12 {
		writeFile(t, opts.Cwd, fmt.Sprintf("f%02d", i), "")
	}
	res := mustCall(t, opts, "ls", `{"limit":5}`)
	if got := resultText(res); got != "f00\nf01\nf02\nf03\nf04\n\n[Entry limit reached: showing 5 of 12 entries. Use limit=12 to see them all.]" {
		t.Errorf("got %q", got)
	}
	if d := parseDetails(t, res); d.EntryLimitReached != 5 {
		t.Errorf("details %s", res.Details)
	}
	if got := mustFail(t, opts, "ls", `{"path":"f01"}`); got != "f01 is not a directory" {
		t.Errorf("file: %s", got)
	}
	if got := mustFail(t, opts, "ls", `{"path":"nope"}`); got != "path not found: nope" {
		t.Errorf("missing: %s", got)
	}
	// Many long names: the output stays within the byte limit.
	dir := filepath.Join(opts.Cwd, "many")
	os.Mkdir(dir, 0o755)
	name := func(i int) string { return fmt.Sprintf("%04d-%s", i, strings.Repeat("n", 200)) }
	var full strings.Builder
	for i := range 300 {
		os.WriteFile(filepath.Join(dir, name(i)), nil, 0o644)
		if i > 0 {
			full.WriteString("\n")
		}
		full.WriteString(name(i))
	}
	res = mustCall(t, opts, "ls", `{"path":"many"}`)
	got := resultText(res)
	if !strings.HasPrefix(got, name(0)+"\n") || !strings.Contains(got, name(247)+"\n\n[Output truncated: showing lines 1-248 of 300 (50KB limit).") {
		t.Errorf("got ...%q", tail(got, 200))
	}
	checkFullOutput(t, opts, res, full.String())
}
