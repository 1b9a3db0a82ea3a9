package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCreatesParents(t *testing.T) {
	opts := testOptions(t)
	res := mustCall(t, opts, "write", `{"path":"a/b/c.txt","content":"hello\nworld\n"}`)
	if got := resultText(res); got != "Wrote 12 bytes to a/b/c.txt." || res.Details != nil {
		t.Errorf("result %q %s", got, res.Details)
	}
	p := filepath.Join(opts.Cwd, "a", "b", "c.txt")
	if got := readFile(t, p); got != "hello\nworld\n" {
		t.Errorf("file %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	// Empty content is a valid file.
	mustCall(t, opts, "write", `{"path":"empty","content":""}`)
	if readFile(t, filepath.Join(opts.Cwd, "empty")) != "" {
		t.Error("empty file not empty")
	}
}

func TestWriteOverwritesAtomically(t *testing.T) {
	opts := testOptions(t)
	p := writeFile(t, opts.Cwd, "f.txt", strings.Repeat("old content\n", 100))
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	mustCall(t, opts, "write", `{"path":"f.txt","content":"new"}`)
	if got := readFile(t, p); got != "new" {
		t.Errorf("file %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(opts.Cwd); len(entries) != 1 {
		t.Errorf("leftover files: %v", entries)
	}
}

func TestWriteErrors(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "dir/x", "")
	if got := mustFail(t, opts, "write", `{"path":"dir","content":"x"}`); got != "dir is not a regular file (directory)" {
		t.Errorf("dir: %s", got)
	}
	writeFile(t, opts.Cwd, "file", "")
	if got := mustFail(t, opts, "write", `{"path":"file/child","content":"x"}`); !strings.HasPrefix(got, "cannot create the directory of file/child") {
		t.Errorf("parent is a file: %s", got)
	}
}
