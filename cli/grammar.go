package cli

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// parserFor builds the parser of args without the commands they cannot reach: the command
// named first alone, and below it, while args name subcommands (`filter deltas …`), those
// alone; without a command name, run alone (parserOfRun). What kong parses and prints of the
// command is the same, and building every command's flags was most of the start-up of a
// short command such as a filter in a pipe. help and __complete describe every command: they
// get the whole CLI.
func parserFor(args []string, streams IO) (*kong.Kong, error) {
	if len(args) == 0 {
		return parserOfRun(args, streams)
	}
	if args[0] == "help" || args[0] == "__complete" {
		return NewParser(&CLI{}, streams)
	}
	grammar, command := cliWithCommand(args[0])
	if command == nil {
		return parserOfRun(args, streams)
	}
	options := parserOptions(streams)
	if left := subcommandsBeside(command, args[1:]); left != "" {
		options = append(options, kong.IgnoreFields(left))
	}
	return kong.New(grammar, options...)
}

// defaultCommand is the command kong runs when args name none (CLI's default:"withargs").
const defaultCommand = "run"

// parserOfRun is the parser of args that do not start with a command name: of run alone when
// that parses them as the whole CLI does (runAlone), and checkCommandTypo has nothing to look
// for among the other commands (run's first argument is not one word); else of the whole CLI.
func parserOfRun(args []string, streams IO) (*kong.Kong, error) {
	if !runAlone(args) {
		return NewParser(&CLI{}, streams)
	}
	grammar, _ := cliWithCommand(defaultCommand)
	parser, err := kong.New(grammar, parserOptions(streams)...)
	if err != nil {
		return nil, err
	}
	if at, ok := firstPositional(parser, args); ok && isWord(args[at]) {
		return NewParser(&CLI{}, streams)
	}
	return parser, nil
}

// runAlone reports whether a grammar of run alone parses args as the whole CLI does: no
// argument is the name of another command, which kong, meeting it before run's arguments,
// would take as that command.
func runAlone(args []string) bool {
	whole := reflect.TypeFor[CLI]()
	for i := range whole.NumField() {
		f := whole.Field(i)
		if _, isCommand := f.Tag.Lookup("cmd"); !isCommand {
			continue
		}
		name := commandName(f)
		if name == "" || f.Tag.Get("aliases") != "" {
			return false // a name kong makes otherwise: it could be any argument
		}
		if name != defaultCommand && slices.Contains(args, name) {
			return false
		}
	}
	return true
}

// cliWithCommand is a new value of a struct made of CLI's fields less its commands but the
// one named name, and the type of that command; nil if CLI has no such command. (kong.New
// parses the tag of every field, even of a command kong.IgnoreFields leaves out; the copy
// has none of CLI's methods, and TestCLIHasNoMethods makes sure there are none to lose.)
func cliWithCommand(name string) (grammar any, command reflect.Type) {
	whole := reflect.TypeFor[CLI]()
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
