package tools

import (
	"fmt"
	"strings"
	"testing"
)

func grepFixture(t *testing.T) Options {
	t.Helper()
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "main.go", "package main\n\nfunc main() {\n\tTODO()\n}\n")
	writeFile(t, opts.Cwd, "pkg/util.go", "package pkg\n\n// todo: tidy\nfunc Util() {}\n")
	writeFile(t, opts.Cwd, "pkg/util_test.go", "package pkg\n// TODO test more\n")
	writeFile(t, opts.Cwd, "docs/notes.md", "a.b\naxb\nTODO docs\n")
	writeFile(t, opts.Cwd, ".git/HEAD", "TODO in git\n")
	writeFile(t, opts.Cwd, "node_modules/x/index.js", "TODO in deps\n")
	writeFile(t, opts.Cwd, "blob.bin", "TODO\x00binary\n")
	writeFile(t, opts.Cwd, ".hidden/h.txt", "TODO hidden\n")
	return opts
}

func TestGrepBasic(t *testing.T) {
	opts := grepFixture(t)
	res := mustCall(t, opts, "grep", `{"pattern":"TODO"}`)
	want := ".hidden/h.txt:1: TODO hidden\ndocs/notes.md:3: TODO docs\nmain.go:4: \tTODO()\npkg/util_test.go:2: // TODO test more"
	if got := resultText(res); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if res.Details != nil {
		t.Errorf("details %s", res.Details)
	}
}

func TestGrepOptions(t *testing.T) {
	opts := grepFixture(t)
	cases := []struct{ args, want string }{
		{`{"pattern":"todo","ignoreCase":true,"glob":"*.go"}`, "main.go:4: \tTODO()\npkg/util.go:3: // todo: tidy\npkg/util_test.go:2: // TODO test more"},
		{`{"pattern":"TODO","glob":"pkg/**"}`, "pkg/util_test.go:2: // TODO test more"},
		{`{"pattern":"TODO","glob":"*.{md,txt}"}`, ".hidden/h.txt:1: TODO hidden\ndocs/notes.md:3: TODO docs"},
		{`{"pattern":"a.b","path":"docs"}`, "notes.md:1: a.b\nnotes.md:2: axb"},
		{`{"pattern":"a.b","path":"docs","literal":true}`, "notes.md:1: a.b"},
		{`{"pattern":"^func","path":"pkg/util.go"}`, "pkg/util.go:4: func Util() {}"},
		{`{"pattern":"nothing-like-this"}`, "No matches found"},
	}
	for _, c := range cases {
		if got := resultText(mustCall(t, opts, "grep", c.args)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}

func TestGrepContext(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "a.txt", "1\n2\nhit3\n4\nhit5\n6\n7\n8\n9\nhit10\n11\n")
	writeFile(t, opts.Cwd, "b.txt", "hit1\n2\n")
	got := resultText(mustCall(t, opts, "grep", `{"pattern":"hit","context":1}`))
	want := "a.txt-2- 2\na.txt:3: hit3\na.txt-4- 4\na.txt:5: hit5\na.txt-6- 6\n--\na.txt-9- 9\na.txt:10: hit10\na.txt-11- 11\n--\nb.txt:1: hit1\nb.txt-2- 2"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGrepLimitAndTruncation(t *testing.T) {
	opts := testOptions(t)
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "match %d\n", i)
	}
	writeFile(t, opts.Cwd, "many.txt", b.String())
	res := mustCall(t, opts, "grep", `{"pattern":"match"}`)
	got := resultText(res)
	if strings.Count(got, "\nmany.txt:") != 99 || !strings.HasSuffix(got, "many.txt:100: match 100\n\n[Match limit reached: showing the first 100 matches. Use limit=200 for more, or refine the pattern.]") {
		t.Errorf("got ...%q", tail(got, 200))
	}
	if d := parseDetails(t, res); d.MatchLimitReached != 100 || d.Truncation != nil {
		t.Errorf("details %s", res.Details)
	}
	if got := resultText(mustCall(t, opts, "grep", `{"pattern":"match","limit":3}`)); !strings.HasPrefix(got, "many.txt:1: match 1\nmany.txt:2: match 2\nmany.txt:3: match 3\n\n[Match limit reached") {
		t.Errorf("limit 3: %q", got)
	}

	// Output over the byte limit is truncated, with the full output saved.
	line := strings.Repeat("w", 400)
	b.Reset()
	for range 200 {
		b.WriteString(line + "\n")
	}
	writeFile(t, opts.Cwd, "wide/w.txt", b.String())
	res = mustCall(t, opts, "grep", `{"pattern":"w+","path":"wide","limit":1000}`)
	var full strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&full, "w.txt:%d: %s\n", i, line)
	}
	checkFullOutput(t, opts, res, strings.TrimSuffix(full.String(), "\n"))
	if got := resultText(res); !strings.Contains(got, "(50KB limit). Full output: ") {
		t.Errorf("got ...%q", tail(got, 200))
	}

	// Very long lines are shortened.
	writeFile(t, opts.Cwd, "long/l.txt", "needle "+strings.Repeat("y", 2000)+"\n")
	got = resultText(mustCall(t, opts, "grep", `{"pattern":"needle","path":"long"}`))
	if len(got) > 600 || !strings.HasSuffix(got, " [line shortened]") {
		t.Errorf("long line: %d bytes", len(got))
	}
}

func TestGrepErrors(t *testing.T) {
	opts := grepFixture(t)
	if got := mustFail(t, opts, "grep", `{"pattern":"(unclosed"}`); !strings.HasPrefix(got, `invalid regular expression "(unclosed"`) {
		t.Errorf("bad regexp: %s", got)
	}
	if got := mustFail(t, opts, "grep", `{"pattern":"x","path":"nowhere"}`); got != "path not found: nowhere" {
		t.Errorf("missing path: %s", got)
	}
	if got := mustFail(t, opts, "grep", `{"pattern":"x","glob":"[z"}`); !strings.HasPrefix(got, `invalid glob pattern "[z"`) {
		t.Errorf("bad glob: %s", got)
	}
}
