package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

// What Options.Hidden names, grep, find and ls leave out: the file, a folder's contents,
// and the path itself when it is named.
func TestListingsLeaveOutHiddenFiles(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, ".env", "TOKEN=secret\n")
	writeFile(t, opts.Cwd, "secret/key", "TOKEN=key\n")
	writeFile(t, opts.Cwd, "a.txt", "TOKEN=public\n")
	opts.Hidden = func(p string) bool {
		rel, _ := filepath.Rel(opts.Cwd, p)
		return rel == ".env" || rel == "secret"
	}
	if got := resultText(mustCall(t, opts, "grep", `{"pattern":"TOKEN"}`)); got != "a.txt:1: TOKEN=public" {
		t.Errorf("grep = %q", got)
	}
	if got := resultText(mustCall(t, opts, "find", `{"pattern":"**"}`)); got != "a.txt" {
		t.Errorf("find = %q", got)
	}
	if got := resultText(mustCall(t, opts, "ls", `{}`)); got != "a.txt" {
		t.Errorf("ls = %q", got)
	}
	for _, c := range [][2]string{{"grep", `{"pattern":"TOKEN","path":".env"}`}, {"ls", `{"path":"secret"}`}, {"find", `{"pattern":"*","path":"secret"}`}} {
		if msg := mustFail(t, opts, c[0], c[1]); !strings.HasPrefix(msg, "Permission denied: ") {
			t.Errorf("%s %s: %q", c[0], c[1], msg)
		}
	}
	opts.Hidden = nil
	if got := resultText(mustCall(t, opts, "ls", `{}`)); got != ".env\na.txt\nsecret/" {
		t.Errorf("ls without Hidden = %q", got)
	}
}
