package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "a/b/c.go", true},
		{"*.go", "a/b/c.gox", false},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/x/a.go", false},
		{"src/**/*.go", "src/a.go", true},
		{"src/**/*.go", "src/x/y/a.go", true},
		{"src/**/*.go", "lib/src/a.go", false},
		{"**/*_test.go", "a/b_test.go", true},
		{"**", "anything/at/all", true},
		{"src/**", "src/a/b", true},
		{"*.{ts,tsx}", "ui/app.tsx", true},
		{"*.{ts,tsx}", "ui/app.js", false},
		{"{a,b}/{c,d{1,2}}.txt", "b/d2.txt", true},
		{"{a,b}/{c,d{1,2}}.txt", "b/d3.txt", false},
		{"./docs/*.md", "docs/x.md", true},
		{"file?.txt", "dir/file1.txt", true},
		{"[ab]*", "x/alpha", true},
		{"Makefile", "sub/Makefile", true},
	}
	for _, c := range cases {
		g, err := compileGlob(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.match(c.path); got != c.want {
			t.Errorf("glob %q on %q = %v", c.pattern, c.path, got)
		}
	}
	if _, err := compileGlob("a/[b"); err == nil {
		t.Error("bad pattern accepted")
	}
}

func findFixture(t *testing.T) Options {
	t.Helper()
	opts := testOptions(t)
	for _, f := range []string{"main.go", "go.mod", "cmd/tool/main.go", "cmd/tool/main_test.go", "internal/x/x.go",
		".github/ci.yml", ".git/config", "node_modules/m/index.js", "web/app.ts", "web/app.tsx", "web/app.js"} {
		writeFile(t, opts.Cwd, f, "")
	}
	return opts
}

func TestFind(t *testing.T) {
	opts := findFixture(t)
	cases := []struct{ args, want string }{
		{`{"pattern":"*.go"}`, "cmd/tool/main.go\ncmd/tool/main_test.go\ninternal/x/x.go\nmain.go"},
		{`{"pattern":"**/*_test.go"}`, "cmd/tool/main_test.go"},
		{`{"pattern":"cmd/**"}`, "cmd/tool/\ncmd/tool/main.go\ncmd/tool/main_test.go"},
		{`{"pattern":"*.{ts,tsx}","path":"web"}`, "app.ts\napp.tsx"},
		{`{"pattern":"*.yml"}`, ".github/ci.yml"},
		{`{"pattern":"tool"}`, "cmd/tool/"},
		{`{"pattern":"index.js"}`, "No files found matching index.js in ."},
		{`{"pattern":"config"}`, "No files found matching config in ."},
	}
	for _, c := range cases {
		res := mustCall(t, opts, "find", c.args)
		if got := resultText(res); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, c.want)
		}
		if res.Details != nil {
			t.Errorf("%s: details %s", c.args, res.Details)
		}
	}
}

func TestFindLimitAndErrors(t *testing.T) {
	opts := testOptions(t)
	var want []string
	for i := range 30 {
		name := fmt.Sprintf("f%02d.txt", i)
		writeFile(t, opts.Cwd, name, "")
		want = append(want, name)
	}
	res := mustCall(t, opts, "find", `{"pattern":"*.txt","limit":10}`)
	got := resultText(res)
	if !strings.HasPrefix(got, strings.Join(want[:10], "\n")+"\n\n[Result limit reached: showing the first 10 matches.") {
		t.Errorf("got %q", got)
	}
	if d := parseDetails(t, res); d.ResultLimitReached != 10 {
		t.Errorf("details %s", res.Details)
	}
	all := strings.Split(resultText(mustCall(t, opts, "find", `{"pattern":"*.txt"}`)), "\n")
	if !slices.Equal(all, want) {
		t.Errorf("all = %v", all)
	}
	if got := mustFail(t, opts, "find", `{"pattern":"*","path":"f01.txt"}`); got != "f01.txt is not a directory" {
		t.Errorf("file path: %s", got)
	}
	if got := mustFail(t, opts, "find", `{"pattern":"*","path":"missing"}`); got != "path not found: missing" {
		t.Errorf("missing path: %s", got)
	}
}
