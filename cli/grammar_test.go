package cli

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/basecontext/base-context/internal/cmdline"

	"github.com/alecthomas/kong"
)

// While arguments name commands (`filter deltas …`), parserFor leaves out the commands
// beside them. For every command and subcommand, and for arguments that succeed, ask for help
// or fail in each way kong reports (unknown flag, flag without its value or with a bad one,
// extra or unknown arguments, typos), the outcome is the whole grammar's: the same output,
// error, exit status, command, usage and values parsed.
func TestCommandsLeftOutChangeNoParse(t *testing.T) {
	whole := wholeParser(t, &bytes.Buffer{}, &bytes.Buffer{})
	var tries [][]string
	for _, top := range whole.Model.Children {
		tries = append(tries, argumentsToTry(top)...)
		if top.Name == defaultCommand {
			for _, args := range argumentsToTry(top) {
				tries = append(tries, args[1:]) // the default command, not named
			}
		}
	}
	// Prompts, and other commands' names where kong may take them as commands.
	tries = append(tries, [][]string{{"fix the tests"}, {"hello"}, {"hlep"}, {"sesions", "list"}, {"--mode", "json", "fix it"},
		{"--mode", "json", "filter", "deltas"}, {"--mode=json", "sessions"}, {"--mode", "json", "filtr"}, {"--model", "list", "hi there"},
		{"--", "filter"}, {"--", "fix it"}, {"--mode", "json", "run", "hi there"}, {"-h"}, {"--help", "fix it"}, {"fix it", "--help"},
		{"--version", "fix it"}, {"fix it", "filter"}, {"-"}, {""}, {"--no-session"}}...)
	for _, args := range tries {
		{
			var wholeOut, wholeErr bytes.Buffer
			want := parseOutcome(wholeParser(t, &wholeOut, &wholeErr), &wholeOut, &wholeErr, args)
			var out, errw bytes.Buffer
			one, err := parserFor(args, IO{Out: &out, Err: &errw})
			if err != nil {
				t.Fatal(err)
			}
			if got := parseOutcome(one, &out, &errw, args); got != want {
				t.Errorf("%q:\nwith commands left out: %s\nwhole grammar:          %s", args, got, want)
			}
		}
	}
}

// The commands left out are those beside each command named, down to the last one named,
// and all but run when none is named; help and __complete, and the arguments where kong
// could meet another command's name or checkCommandTypo look for one, get the whole grammar.
func TestCommandsLeftOut(t *testing.T) {
	whole := wholeParser(t, &bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range []struct {
		args  []string
		named []string // the commands named, by path: the last one keeps all its subcommands
	}{
		{[]string{"filter", "deltas", "a.jsonl"}, []string{"filter", "filter deltas"}},
		{[]string{"filter", "--help"}, []string{"filter"}},
		{[]string{"filter", "delts"}, []string{"filter"}},
		{[]string{"sessions", "list", "--all"}, []string{"sessions", "sessions list"}},
		{[]string{"run", "hi"}, []string{"run"}},
		{[]string{"version"}, []string{"version"}},
		{[]string{"fix the tests"}, []string{"run"}},
		{[]string{"--mode", "json", "--no-session", "fix it"}, []string{"run"}},
		{[]string{"--help"}, []string{"run"}},
		{nil, []string{"run"}},
		{[]string{"help", "filter"}, nil},
		{[]string{"__complete", "fil"}, nil},
		{[]string{"hello"}, nil}, // one word: maybe a mistyped command
		{[]string{"--mode", "json", "filtr"}, nil},
		{[]string{"--mode", "json", "filter"}, nil}, // another command's name
		{[]string{"fix it", "sessions"}, nil},
	} {
		p, err := parserFor(c.args, IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
		if err != nil {
			t.Fatal(err)
		}
		want := commandPaths(whole.Model.Node)[1:]
		if n := len(c.named); n > 0 {
			want = append(c.named[:n-1:n-1], commandPaths(nodeAt(whole.Model.Node, c.named[n-1]))...)
		}
		if got := commandPaths(p.Model.Node)[1:]; strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%q: commands %q, want %q", c.args, got, want)
		}
	}
}

// parserFor parses a command named first with a copy of CLI's fields (cliWithCommand),
// which has none of CLI's methods: kong would call a Run, Help, Validate or hook method of
// CLI, and the copy would silently lose it.
func TestCLIHasNoMethods(t *testing.T) {
	if n := reflect.PointerTo(reflect.TypeFor[CLI]()).NumMethod(); n != 0 {
		t.Errorf("*CLI has %d methods; parserFor's copy of CLI (cliWithCommand) would lose them", n)
	}
}

// commandPaths are the paths of n and of every command under it, depth first.
func commandPaths(n *kong.Node) []string {
	paths := []string{n.Path()}
	for _, c := range n.Children {
		paths = append(paths, commandPaths(c)...)
	}
	return paths
}

func nodeAt(n *kong.Node, path string) *kong.Node {
	for _, word := range strings.Fields(path) {
		for _, c := range n.Children {
			if c.Name == word {
				n = c
			}
		}
	}
	return n
}

func wholeParser(t *testing.T, out, errw *bytes.Buffer) *kong.Kong {
	t.Helper()
	p, err := NewParser(&CLI{}, IO{Out: out, Err: errw})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// argumentsToTry are command lines for every command under top, each of its flags and
// positional arguments, right and wrong.
func argumentsToTry(top *kong.Node) [][]string {
	var all [][]string
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		path := strings.Fields(n.Path())
		with := func(more ...string) { all = append(all, append(append([]string(nil), path...), more...)) }
		with()
		with("--help")
		with("-h")
		with("--version")
		with("--no-such-flag")
		with("a", "b", "c", "d")
		with("--", "-x")
		for _, child := range n.Children {
			with(child.Name[:len(child.Name)-1]) // a typo
		}
		for _, f := range n.Flags {
			with("--" + f.Name)
			with("--"+f.Name, "x")
			with("--"+f.Name+"=", "1")
			with("--"+f.Name+"=2", "--"+f.Name+"=3")
			with("--"+f.Name+"=-1", "a")
			if f.Short != 0 {
				with("-"+string(f.Short), "0")
			}
			if f.Enum != "" {
				for _, v := range strings.Split(f.Enum, ",") {
					with("--"+f.Name, strings.TrimSpace(v))
				}
			}
		}
		for _, p := range n.Positional {
			if p.Enum != "" {
				for _, v := range strings.Split(p.Enum, ",") {
					with(strings.TrimSpace(v))
				}
			}
		}
		for _, child := range n.Children {
			walk(child)
		}
	}
	walk(top)
	return all
}

// parseOutcome parses args with parser and tells all that came of it: what it printed, its
// exit (help, version) or error, the command chosen, its usage and the values it was given.
func parseOutcome(parser *kong.Kong, out, errw *bytes.Buffer, args []string) (outcome string) {
	defer func() {
		if r := recover(); r != nil {
			req, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			outcome = fmt.Sprintf("exit %d; stdout %q; stderr %q", req.code, out, errw)
		}
	}()
	typo := cmdline.CheckCommandTypo(parser.Model, args, defaultCommand)
	ctx, err := parser.Parse(args)
	if err != nil {
		return fmt.Sprintf("typo check %v; error %v; stdout %q; stderr %q", typo, err, out, errw)
	}
	if err := ctx.PrintUsage(false); err != nil {
		return fmt.Sprintf("usage error %v", err)
	}
	var values any // of the top-level command, which hold every value parsed
	for _, p := range ctx.Path {
		if p.Command != nil {
			values = p.Command.Target.Interface()
			break
		}
	}
	return fmt.Sprintf("typo check %v; command %q; values %#v; stdout %q; stderr %q",
		typo, ctx.Command(), values, out, errw)
}
