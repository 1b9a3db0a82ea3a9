package cli

import (
	"reflect"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
)

// parserFor builds the parser of args without the commands they cannot reach: while args
// start with command names (`filter deltas …`), the other commands beside each one are left
// out. What kong parses and prints of the command named is the same, and building every
// command's flags (run's 114 among them) was most of the start-up of a short command such as
// a filter in a pipe. help and __complete describe every command, and without a command
// name run is chosen by default and its help is the top-level one: those get the whole CLI.
func parserFor(args []string, streams IO) (*kong.Kong, error) {
	var options []kong.Option
	if left := unreachedCommands(args); left != "" {
		options = append(options, kong.IgnoreFields(left))
	}
	return newParser(&CLI{}, streams, options...)
}

// unreachedCommands is a pattern of kong.IgnoreFields for the commands beside those that
// args name first, "" when there are none to leave out.
func unreachedCommands(args []string) string {
	var left []string
	t := reflect.TypeFor[CLI]()
	for i, word := range args {
		if i == 0 && (word == "help" || word == "__complete") {
			break
		}
		var named reflect.Type
		var others []string
		for j := range t.NumField() {
			f := t.Field(j)
			if _, isCommand := f.Tag.Lookup("cmd"); !isCommand {
				continue
			}
			if commandName(f) == word {
				named = f.Type
			} else {
				others = append(others, f.Name)
			}
		}
		if named == nil || named.Kind() != reflect.Struct {
			break
		}
		if len(others) > 0 {
			left = append(left, regexp.QuoteMeta(t.Name())+`\.(?:`+strings.Join(others, "|")+`)`)
		}
		t = named
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
