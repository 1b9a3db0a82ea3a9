package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// A command named first is parsed with a grammar of that command alone (parserFor). For every
// command and subcommand, and for arguments that succeed, ask for help or fail in each way
// kong reports (unknown flag, flag without its value or with a bad one, extra or unknown
// arguments, typos), the outcome is the whole grammar's: the same output, error, exit status,
// command, usage and values parsed.
func TestOneCommandGrammarParsesAsTheWhole(t *testing.T) {
	whole := wholeParser(t, &bytes.Buffer{}, &bytes.Buffer{})
	trimmed := 0
	for _, top := range whole.Model.Children {
		if wholeGrammarCommands[top.Name] {
			continue
		}
		trimmed++
		var out, errw bytes.Buffer
		one, err := parserFor([]string{top.Name}, IO{Out: &out, Err: &errw})
		if err != nil {
			t.Fatal(err)
		}
		if len(one.Model.Children) != 1 || one.Model.Children[0].Name != top.Name {
			t.Fatalf("parserFor(%q) builds %d commands, want %q alone", top.Name, len(one.Model.Children), top.Name)
		}
		for _, args := range argumentsToTry(top) {
			var wholeOut, wholeErr bytes.Buffer
			want := parseOutcome(wholeParser(t, &wholeOut, &wholeErr), &wholeOut, &wholeErr, args)
			out.Reset()
			errw.Reset()
			one, err := parserFor(args, IO{Out: &out, Err: &errw})
			if err != nil {
				t.Fatal(err)
			}
			if got := parseOutcome(one, &out, &errw, args); got != want {
				t.Errorf("%q:\none command's grammar: %s\nwhole grammar:         %s", args, got, want)
			}
		}
	}
	if trimmed < 10 {
		t.Errorf("only %d commands parsed with their own grammar", trimmed)
	}
	// The other commands, and arguments that do not start with a command, get the whole.
	for _, args := range [][]string{{"run", "hi"}, {"help", "filter"}, {"__complete", "fil"}, {"hello"}, {"--mode", "json", "filter"}, {"filtr"}, {}} {
		p, err := parserFor(args, IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Model.Children) != len(whole.Model.Children) {
			t.Errorf("%q: %d commands, want the whole grammar's %d", args, len(p.Model.Children), len(whole.Model.Children))
		}
	}
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
	typo := checkCommandTypo(parser, args)
	ctx, err := parser.Parse(args)
	if err != nil {
		return fmt.Sprintf("typo check %v; error %v; stdout %q; stderr %q", typo, err, out, errw)
	}
	if err := ctx.PrintUsage(false); err != nil {
		return fmt.Sprintf("usage error %v", err)
	}
	command := ctx.Path[1].Command // the top-level one, whose value holds every value parsed
	return fmt.Sprintf("typo check %v; command %q; values %#v; stdout %q; stderr %q",
		typo, ctx.Command(), command.Target.Interface(), out, errw)
}
