package policy

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestCommandsSplitsCompoundLines(t *testing.T) {
	got, err := Commands(`make build && rm -rf 'out dir'; ls | wc -l; (cd x && git status); echo "$(curl http://e)"; f() { shred a; }`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"make build", "rm -rf out dir", "ls", "wc -l", "cd x", "git status", `echo "$(curl http://e)"`, "curl http://e", "shred a"}
	if !slices.Equal(got, want) {
		t.Errorf("Commands = %q\nwant %q", got, want)
	}
	if _, err := Commands("echo 'unterminated"); err == nil {
		t.Error("an unterminated quote parsed")
	}
}

func mustRule(t *testing.T, s, source string) Rule {
	t.Helper()
	r, err := ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	r.Source = source
	return r
}

func bash(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

func pathArg(p string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"path": p})
	return b
}

func TestCheck(t *testing.T) {
	p := &Policy{Mode: ModeAllow, Cwd: "/proj",
		Deny:  []Rule{mustRule(t, "bash(rm *)", "D1"), mustRule(t, "read(.env)", "D2")},
		Allow: []Rule{mustRule(t, "bash(go test *)", "A1"), mustRule(t, "write(src/**)", "A2"), mustRule(t, "bash(rm -rf build)", "A3")}}
	ctx := context.Background()
	for _, c := range []struct {
		mode       Mode
		tool       string
		args       json.RawMessage
		wantDenied string // "" when allowed
	}{
		{ModeAllow, "bash", bash("ls && echo $(rm -rf build)"), "Permission denied: bash(rm -rf build) by rule D1"}, // deny wins over A3
		{ModeAllow, "bash", bash("ls -la"), ""},
		{ModeAllow, "read", pathArg(".env"), "Permission denied: read(.env) by rule D2"},
		{ModeAllow, "read", pathArg("/proj/.env"), "Permission denied: read(.env) by rule D2"},
		{ModeAllow, "read", pathArg("sub/.env"), ""}, // anchored at the working directory
		{ModeDeny, "bash", bash("go test ./..."), ""},
		{ModeDeny, "bash", bash("go test"), ""},
		{ModeDeny, "bash", bash("go test ./... | tee log"), "Permission denied: bash(tee log) by --permission-mode deny: no --allow rule matches it"},
		{ModeDeny, "write", pathArg("src/a/b.go"), ""},
		{ModeDeny, "write", pathArg("../proj/src/x.go"), ""},
		{ModeDeny, "write", pathArg("main.go"), "Permission denied: write(main.go) by --permission-mode deny: no --allow rule matches it"},
		{ModeDeny, "ls", nil, "Permission denied: ls(.) by --permission-mode deny: no --allow rule matches it"},
		{ModeAsk, "bash", bash("make"), "Permission denied: bash(make) by --permission-mode ask: no client to ask, and no --allow rule matches it"},
	} {
		p.Mode = c.mode
		err := p.Check(ctx, c.tool, c.args)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.wantDenied {
			t.Errorf("%s %s %s: got %q, want %q", c.mode, c.tool, c.args, got, c.wantDenied)
		}
	}
}

func TestReadOnlyAndAsk(t *testing.T) {
	ctx := context.Background()
	p := &Policy{Mode: ModeAllow, ReadOnly: true, Cwd: "/proj"}
	if err := p.Check(ctx, "edit", pathArg("a.go")); err == nil || err.Error() != "Permission denied: edit(a.go) by --read-only" {
		t.Errorf("read-only edit: %v", err)
	}
	if err := p.Check(ctx, "read", pathArg("a.go")); err != nil {
		t.Errorf("read-only read: %v", err)
	}
	var asked []string
	p = &Policy{Mode: ModeAsk, Cwd: "/proj", Allow: []Rule{mustRule(t, "bash(ls)", "A")},
		Ask: func(_ context.Context, q string) (bool, error) {
			asked = append(asked, q)
			return q == "Allow bash(ls && make)?", nil
		}}
	if err := p.Check(ctx, "bash", bash("ls")); err != nil || len(asked) != 0 {
		t.Errorf("an allowed call was asked about: %v %q", err, asked)
	}
	if err := p.Check(ctx, "bash", bash("ls && make")); err != nil {
		t.Errorf("a confirmed call was refused: %v", err)
	}
	if err := p.Check(ctx, "bash", bash("make clean")); err == nil || err.Error() != "Permission denied: bash(make clean) by the user (--permission-mode ask)" {
		t.Errorf("a declined call: %v", err)
	}
	p.Ask = func(ctx context.Context, _ string) (bool, error) { <-ctx.Done(); return false, ctx.Err() }
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.Check(cctx, "bash", bash("make")); err == nil || !errors.As(err, new(*Denied)) {
		t.Errorf("an unanswered question: %v", err)
	}
}

// Rules name tools by name or by a glob of names (the MCP tools of a server); --read-only
// refuses the tools Writes names besides write, edit and bash.
func TestToolNameGlobsAndWrites(t *testing.T) {
	ctx := context.Background()
	p := &Policy{Mode: ModeDeny, Cwd: "/proj",
		Deny:  []Rule{mustRule(t, "mcp__github__*", "D")},
		Allow: []Rule{mustRule(t, "mcp__*__read_*", "A1"), mustRule(t, "mcp__github__get_issue", "A2")}}
	for _, c := range []struct{ tool, want string }{
		{"mcp__github__create_issue", "Permission denied: mcp__github__create_issue by rule D"},
		{"mcp__github__get_issue", "Permission denied: mcp__github__get_issue by rule D"}, // deny wins
		{"mcp__fs__read_text_file", ""},
		{"mcp__fs__write_file", "Permission denied: mcp__fs__write_file by --permission-mode deny: no --allow rule matches it"},
		{"mcp__github2__x", "Permission denied: mcp__github2__x by --permission-mode deny: no --allow rule matches it"},
	} {
		got := ""
		if err := p.Check(ctx, c.tool, json.RawMessage(`{}`)); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.tool, got, c.want)
		}
	}
	ro := &Policy{Mode: ModeAllow, ReadOnly: true, Writes: func(tool string) bool { return tool == "mcp__fs__write_file" }}
	if err := ro.Check(ctx, "mcp__fs__write_file", nil); err == nil || err.Error() != "Permission denied: mcp__fs__write_file by --read-only" {
		t.Errorf("read-only, a tool that writes: %v", err)
	}
	if err := ro.Check(ctx, "mcp__fs__read_text_file", nil); err != nil {
		t.Errorf("read-only, a read-only tool: %v", err)
	}
	if _, err := ParseRule("mcp__*(x)"); err == nil || !strings.Contains(err.Error(), "a TOOL with * (every tool it matches) takes no (PATTERN)") {
		t.Errorf("a glob with a pattern: %v", err)
	}
}

func TestParseRule(t *testing.T) {
	for _, bad := range []string{"", "bash(", "bash()", "(x)", "write([)"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
	r, err := ParseRule("bash(  go   test * )")
	if err != nil || r.String() != "bash(go test *)" {
		t.Errorf("ParseRule = %v %v", r, err)
	}
}
