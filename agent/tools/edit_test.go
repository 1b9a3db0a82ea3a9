package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditSingle(t *testing.T) {
	opts := testOptions(t)
	p := writeFile(t, opts.Cwd, "src/main.go", "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	res := mustCall(t, opts, "edit", `{"path":"src/main.go","edits":[{"oldText":"println(\"hi\")","newText":"println(\"hello\")"}]}`)
	if got := resultText(res); got != "Applied 1 edit to src/main.go." {
		t.Errorf("text %q", got)
	}
	if got := readFile(t, p); got != "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n" {
		t.Errorf("file %q", got)
	}
	d := parseDetails(t, res)
	wantDiff := "--- src/main.go\n+++ src/main.go\n@@ -1,5 +1,5 @@\n package main\n \n func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n }\n"
	if d.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", d.Diff, wantDiff)
	}
	if d.FirstChangedLine != 4 {
		t.Errorf("firstChangedLine %d", d.FirstChangedLine)
	}
}

func TestEditTopLevelForm(t *testing.T) {
	opts := testOptions(t)
	p := writeFile(t, opts.Cwd, "a.txt", "alpha\nbeta\n")
	res := mustCall(t, opts, "edit", `{"path":"a.txt","oldText":"beta","newText":"gamma"}`)
	if got := resultText(res); got != "Applied 1 edit to a.txt." {
		t.Errorf("text %q", got)
	}
	if got := readFile(t, p); got != "alpha\ngamma\n" {
		t.Errorf("file %q", got)
	}
}

func TestEditMultiple(t *testing.T) {
	opts := testOptions(t)
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("l%d", i))
	}
	lines[1], lines[24] = "one", "two"
	content := strings.Join(lines, "\n") + "\n"
	p := writeFile(t, opts.Cwd, "m.txt", content)
	// Both are matched against the original: applied in sequence, the first edit would make
	// the second one's oldText ambiguous.
	res := mustCall(t, opts, "edit", `{"path":"m.txt","edits":[{"oldText":"two","newText":"2"},{"oldText":"one\n","newText":"two\nextra\n"}]}`)
	if got := resultText(res); got != "Applied 2 edits to m.txt." {
		t.Errorf("text %q", got)
	}
	want := strings.Replace(strings.Replace(content, "two", "2", 1), "one\n", "two\nextra\n", 1)
	if got := readFile(t, p); got != want {
		t.Errorf("file %q", got)
	}
	wantDiff := "--- m.txt\n+++ m.txt\n" +
		"@@ -1,5 +1,6 @@\n l1\n-one\n+two\n+extra\n l3\n l4\n l5\n" +
		"@@ -22,7 +23,7 @@\n l22\n l23\n l24\n-two\n+2\n l26\n l27\n l28\n"
	if d := parseDetails(t, res); d.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", d.Diff, wantDiff)
	}
}

func TestEditMissingAndAmbiguousAreAllOrNothing(t *testing.T) {
	opts := testOptions(t)
	content := "one\ntwo\ntwo\nthree\n"
	p := writeFile(t, opts.Cwd, "f.txt", content)

	got := mustFail(t, opts, "edit", `{"path":"f.txt","edits":[{"oldText":"one","newText":"1"},{"oldText":"four","newText":"4"}]}`)
	if !strings.HasPrefix(got, "edits[1].oldText was not found in f.txt.") {
		t.Errorf("missing: %s", got)
	}
	got = mustFail(t, opts, "edit", `{"path":"f.txt","edits":[{"oldText":"one","newText":"1"},{"oldText":"three","newText":"3"},{"oldText":"two\n","newText":"2\n"}]}`)
	if !strings.HasPrefix(got, "edits[2].oldText occurs 2 times in f.txt; it must occur exactly once.") {
		t.Errorf("ambiguous: %s", got)
	}
	got = mustFail(t, opts, "edit", `{"path":"f.txt","oldText":"t","newText":"T"}`)
	if !strings.HasPrefix(got, "oldText occurs 3 times in f.txt") {
		t.Errorf("ambiguous top-level: %s", got)
	}
	got = mustFail(t, opts, "edit", `{"path":"f.txt","edits":[{"oldText":"one\ntwo","newText":"x"},{"oldText":"e\nt","newText":"y"}]}`)
	if !strings.Contains(got, "overlap") {
		t.Errorf("overlap: %s", got)
	}
	got = mustFail(t, opts, "edit", `{"path":"f.txt","edits":[{"oldText":"one","newText":"one"}]}`)
	if !strings.HasPrefix(got, "no changes made to f.txt") {
		t.Errorf("no-op: %s", got)
	}
	if readFile(t, p) != content {
		t.Fatal("file changed by a failed edit")
	}
	// Overlapping occurrences count as ambiguous too.
	writeFile(t, opts.Cwd, "aaa.txt", "aaa")
	if got := mustFail(t, opts, "edit", `{"path":"aaa.txt","oldText":"aa","newText":"b"}`); !strings.Contains(got, "occurs 2 times") {
		t.Errorf("overlapping occurrences: %s", got)
	}
	if got := mustFail(t, opts, "edit", `{"path":"nope.txt","oldText":"a","newText":"b"}`); !strings.HasPrefix(got, "file not found: nope.txt") {
		t.Errorf("missing file: %s", got)
	}
}

func TestEditAtomicKeepsModeAndSymlink(t *testing.T) {
	opts := testOptions(t)
	p := writeFile(t, opts.Cwd, "script.sh", "#!/bin/sh\necho old\n")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(opts.Cwd, "link.sh")
	if err := os.Symlink("script.sh", link); err != nil {
		t.Fatal(err)
	}
	mustCall(t, opts, "edit", `{"path":"link.sh","oldText":"old","newText":"new"}`)
	if got := readFile(t, p); got != "#!/bin/sh\necho new\n" {
		t.Errorf("file %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced by a file")
	}
	entries, _ := os.ReadDir(opts.Cwd)
	if len(entries) != 2 {
		t.Errorf("leftover files: %v", entries)
	}
}

func TestEditCRLF(t *testing.T) {
	opts := testOptions(t)
	p := writeFile(t, opts.Cwd, "win.txt", "first\r\nsecond\r\nthird\r\n")
	mustCall(t, opts, "edit", `{"path":"win.txt","oldText":"first\nsecond","newText":"1st\n2nd"}`)
	if got := readFile(t, p); got != "1st\r\n2nd\r\nthird\r\n" {
		t.Errorf("file %q", got)
	}
}

func TestEditDiffEdges(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "d.txt", "a\nb\nc")
	res := mustCall(t, opts, "edit", `{"path":"d.txt","oldText":"b\n","newText":""}`)
	if d := parseDetails(t, res); d.Diff != "--- d.txt\n+++ d.txt\n@@ -1,3 +1,2 @@\n a\n-b\n c\n\\ No newline at end of file\n" {
		t.Errorf("diff %q", d.Diff)
	}
	// Two edits on one line.
	writeFile(t, opts.Cwd, "e.txt", "x = f(a, b)\n")
	res = mustCall(t, opts, "edit", `{"path":"e.txt","edits":[{"oldText":"a,","newText":"A,"},{"oldText":"b)","newText":"B)"}]}`)
	if d := parseDetails(t, res); d.Diff != "--- e.txt\n+++ e.txt\n@@ -1,1 +1,1 @@\n-x = f(a, b)\n+x = f(A, B)\n" {
		t.Errorf("diff %q", d.Diff)
	}
}
