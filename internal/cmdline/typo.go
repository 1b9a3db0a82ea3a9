package cmdline

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/similar"
)

// CheckCommandTypo refuses a first argument that looks like a mistyped command: it would
// otherwise become a prompt, and a prompt runs a model (which may cost money and run tools).
// A single word (no spaces) that is a command's name or close to one is a command; anything
// else is a prompt. `--` makes any argument a prompt.
func CheckCommandTypo(app *kong.Application, args []string, defaultCommand string) error {
	at, ok := FirstPositional(app, args, defaultCommand)
	if !ok {
		return nil
	}
	word := args[at]
	if !IsWord(word) {
		return nil // "/compact", "fix it", "@file": prompts
	}
	best, exact := ClosestCommand(app, word)
	if exact || best == "" {
		return nil // a command (kong takes it from here), or a prompt
	}
	asPrompt := append(append(quoteArgs(args[:at]), "--"), quoteArgs(args[at:])...)
	return fmt.Errorf("unknown command %q; did you mean %q? To send it as a prompt: base-context %s",
		word, best, strings.Join(asPrompt, " "))
}

// IsWord reports whether s could be a mistyped command name: letters, and "-" or "_" after
// the first.
func IsWord(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r == '_')) {
			return false
		}
	}
	return s != ""
}

// ClosestCommand is the top-level command word names or is close to (see typoDistance);
// exact reports whether it names one.
func ClosestCommand(app *kong.Application, word string) (best string, exact bool) {
	lower := strings.ToLower(word)
	bestDist := -1
	for _, cmd := range app.Children {
		if cmd.Hidden {
			continue
		}
		for _, name := range append([]string{cmd.Name}, cmd.Aliases...) {
			if name == word {
				return name, true
			}
			d := similar.Distance(lower, name)
			if d <= typoDistance(name) && (bestDist < 0 || d < bestDist) {
				best, bestDist = name, d
			}
		}
	}
	return best, false
}

// typoDistance is how many edits away from a command name a word still reads as that
// command: two, but one for names of four letters or less, so that ordinary short prompts
// ("hello", "test", "ls") stay prompts while "hlep" or "lsit" do not.
func typoDistance(name string) int {
	if len(name) <= 4 {
		return 1
	}
	return 2
}

// FirstPositional is the index of the first argument of the default command that is not a
// flag or a flag's value; ok is false when there is none or `--` comes first.
func FirstPositional(app *kong.Application, args []string, defaultCommand string) (int, bool) {
	var run *kong.Node
	for _, cmd := range app.Children {
		if cmd.Name == defaultCommand {
			run = cmd
		}
	}
	takesValue := map[string]bool{}
	if run != nil {
		for _, group := range run.AllFlags(false) {
			for _, f := range group {
				if f.IsBool() || f.IsCounter() {
					continue
				}
				takesValue["--"+f.Name] = true
				if f.Short != 0 {
					takesValue["-"+string(f.Short)] = true
				}
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return 0, false
		case strings.HasPrefix(a, "-") && a != "-":
			if !strings.Contains(a, "=") && takesValue[a] {
				i++
			}
		default:
			return i, true
		}
	}
	return 0, false
}

// quoteArgs quotes the arguments that a shell would split.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\|&;<>()*?[]{}!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
}
