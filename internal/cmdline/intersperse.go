// Package cmdline is the machinery of base-context's command line over kong's model of it:
// flags anywhere among the arguments, and the man page.
package cmdline

import (
	"strings"

	"github.com/alecthomas/kong"
)

// Intersperse moves the flags (with their values) that follow a command's first positional
// argument in front of it, so that flags may come anywhere among the positionals, as with
// gh, rg or jq: kong ends a positional list at the first flag. The arguments up to the first
// positional (the command's name, its subcommands', the flags before them) keep their
// order; `--` still ends the flags: what follows it stays positional, after the others, so
// a prompt such as "-x" goes after it. A command whose positional is a
// passthrough (it takes every argument as it comes) is left alone. Before a command is
// named the default command's flags count too (withDefault names it: the command kong runs
// when none is named).
func Intersperse(app *kong.Application, args []string, withDefault string) []string {
	node := app.Node
	first := -1 // index of the first positional
	var flags, positionals []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if first < 0 {
				return args
			}
			// kong takes `--` only before a positional list: the positionals go after it.
			return join(args[:first], flags, []string{"--"}, positionals, args[i+1:])
		case strings.HasPrefix(a, "-") && a != "-":
			end := i + 1
			if takesValue(node, app.Node, withDefault, a) {
				if end == len(args) {
					return args // its value is missing: kong says so, nothing is moved into it
				}
				end++
			}
			if first >= 0 {
				flags = append(flags, args[i:end]...)
			}
			i = end - 1
		case first < 0 && child(node, a) != nil:
			node = child(node, a)
			if passthrough(node) {
				return args
			}
			// A default subcommand with a passthrough (`batch TASKS …` for `batch run TASKS …`)
			// takes the arguments as they come, unless another subcommand is named.
			if d := node.DefaultCmd; d != nil && (i+1 == len(args) || child(node, args[i+1]) == nil) && passthrough(d) {
				return args
			}
		default:
			if first < 0 {
				first = i
			}
			positionals = append(positionals, a)
		}
	}
	if first < 0 {
		return args
	}
	return join(args[:first], flags, positionals, nil)
}

// passthrough reports whether the command takes its arguments as they come: its
// positional is a passthrough.
func passthrough(node *kong.Node) bool {
	for _, p := range node.Positional {
		if p.Passthrough {
			return true
		}
	}
	return false
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// child is node's subcommand named name (or aliased so), nil when there is none.
func child(node *kong.Node, name string) *kong.Node {
	for _, c := range node.Children {
		if c.Type != kong.CommandNode {
			continue
		}
		if c.Name == name {
			return c
		}
		for _, alias := range c.Aliases {
			if alias == name {
				return c
			}
		}
	}
	return nil
}

// takesValue reports whether the flag arg (as written: --name, -x, or a cluster of short
// flags -qo) of node, its parents, or the default command when none is named takes the next
// argument as its value: not a bool or a counter, not written --name=value or -xVALUE, and
// in a cluster the last letter, after bools only.
func takesValue(node, root *kong.Node, withDefault, arg string) bool {
	if strings.Contains(arg, "=") {
		return false
	}
	nodes := []*kong.Node{}
	for n := node; n != nil; n = n.Parent {
		nodes = append(nodes, n)
	}
	if node == root {
		if d := child(root, withDefault); d != nil {
			nodes = append(nodes, d)
		}
	}
	takes := func(f *kong.Flag) bool { return !f.IsBool() && !f.IsCounter() }
	if strings.HasPrefix(arg, "--") {
		f := flagNamed(nodes, func(f *kong.Flag) bool { return arg == "--"+f.Name || hasAlias(f, arg) })
		return f != nil && takes(f)
	}
	letters := []rune(arg[1:])
	for i, r := range letters {
		f := flagNamed(nodes, func(f *kong.Flag) bool { return f.Short == r })
		if f == nil {
			return false // kong refuses it
		}
		if takes(f) {
			return i == len(letters)-1 // -oVALUE, or -qo VALUE
		}
	}
	return false
}

// flagNamed is the first flag of nodes that is.
func flagNamed(nodes []*kong.Node, is func(*kong.Flag) bool) *kong.Flag {
	for _, n := range nodes {
		for _, f := range n.Flags {
			if is(f) {
				return f
			}
		}
	}
	return nil
}

func hasAlias(f *kong.Flag, arg string) bool {
	for _, a := range f.Aliases {
		if arg == "--"+a {
			return true
		}
	}
	return false
}
