package cmdline

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// Grammar builds kong parsers of a command line that leave out the commands the arguments
// cannot reach.
type Grammar struct {
	Whole    reflect.Type  // the struct of every command (it must have no methods: see withCommand)
	Default  string        // the command kong runs when none is named (default:"withargs")
	WholeFor []string      // commands that get every command: they describe them all (help)
	Options  []kong.Option // of every parser
}

// whole is the parser of every command.
func (g Grammar) whole() (*kong.Kong, error) {
	return kong.New(reflect.New(g.Whole).Interface(), g.Options...)
}

// ParserFor builds the parser of args without the commands they cannot reach: the command
// named first alone, and below it, while args name subcommands (`filter deltas …`), those
// alone; without a command name, run alone (parserOfRun). What kong parses and prints of the
// command is the same, and building every command's flags was most of the start-up of a
// short command such as a filter in a pipe. help and __complete describe every command: they
// get the whole CLI.
func (g Grammar) ParserFor(args []string) (*kong.Kong, error) {
	if len(args) == 0 {
		return g.parserOfRun(args)
	}
	if slices.Contains(g.WholeFor, args[0]) {
		return g.whole()
	}
	grammar, command := g.withCommand(args[0])
	if command == nil {
		return g.parserOfRun(args)
	}
	options := slices.Clip(g.Options)
	if left := subcommandsBeside(command, args[1:]); left != "" {
		options = append(options, kong.IgnoreFields(left))
	}
	return kong.New(grammar, options...)
}

// parserOfRun is the parser of args that do not start with a command name: of run alone when
// that parses them as the whole CLI does (runAlone), and CheckCommandTypo has nothing to look
// for among the other commands (run's first argument is not one word); else of the whole CLI.
func (g Grammar) parserOfRun(args []string) (*kong.Kong, error) {
	if !g.runAlone(args) {
		return g.whole()
	}
	grammar, _ := g.withCommand(g.Default)
	parser, err := kong.New(grammar, g.Options...)
	if err != nil {
		return nil, err
	}
	if at, ok := FirstPositional(parser.Model, args, g.Default); ok && IsWord(args[at]) {
		return g.whole()
	}
	return parser, nil
}

// runAlone reports whether a grammar of run alone parses args as the whole CLI does: no
// argument is the name of another command, which kong, meeting it before run's arguments,
// would take as that command.
func (g Grammar) runAlone(args []string) bool {
	whole := g.Whole
	for i := range whole.NumField() {
		f := whole.Field(i)
		if _, isCommand := f.Tag.Lookup("cmd"); !isCommand {
			continue
		}
		name := commandName(f)
		if name == "" || f.Tag.Get("aliases") != "" {
			return false // a name kong makes otherwise: it could be any argument
		}
		if name != g.Default && slices.Contains(args, name) {
			return false
		}
	}
	return true
}

// withCommand is a new value of a struct made of CLI's fields less its commands but the
// one named name, and the type of that command; nil if CLI has no such command. (kong.New
// parses the tag of every field, even of a command kong.IgnoreFields leaves out; the copy
// has none of CLI's methods, and TestCLIHasNoMethods makes sure there are none to lose.)
func (g Grammar) withCommand(name string) (grammar any, command reflect.Type) {
	whole := g.Whole
	var fields []reflect.StructField
	for i := range whole.NumField() {
		f := whole.Field(i)
		if _, isCommand := f.Tag.Lookup("cmd"); isCommand {
			if name == "" || commandName(f) != name {
				continue
			}
			command = f.Type
		}
		fields = append(fields, f)
	}
	if command == nil {
		return nil, nil
	}
	return reflect.New(reflect.StructOf(fields)).Interface(), command
}

// subcommandsBeside is a pattern of kong.IgnoreFields for the subcommands of command beside
// those that args name first, "" when there are none to leave out. (These command types
// keep their methods, Run and Help among them.)
func subcommandsBeside(command reflect.Type, args []string) string {
	var left []string
	for _, word := range args {
		var named reflect.Type
		var others []string
		for i := range command.NumField() {
			f := command.Field(i)
			if _, isCommand := f.Tag.Lookup("cmd"); !isCommand {
				continue
			}
			if commandName(f) == word {
				named = f.Type
			} else {
				others = append(others, f.Name)
			}
		}
		if named == nil {
			break
		}
		if len(others) > 0 {
			left = append(left, regexp.QuoteMeta(command.Name())+`\.(?:`+strings.Join(others, "|")+`)`)
		}
		command = named
	}
	if len(left) == 0 {
		return ""
	}
	return `^(?:` + strings.Join(left, "|") + `)$`
}

// commandName is the name kong gives the command of the field f: its name tag, else its Go
// name in lower case when that is one word ("" otherwise: such a command is not left out).
func commandName(f reflect.StructField) string {
	if name := f.Tag.Get("name"); name != "" {
		return name
	}
	if strings.ToLower(f.Name[1:]) != f.Name[1:] {
		return ""
	}
	return strings.ToLower(f.Name)
}
