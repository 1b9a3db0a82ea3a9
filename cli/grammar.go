package cli

import (
	"reflect"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/cmdline"
)

// defaultCommand is the command kong runs when args name none (CLI's default:"withargs").
const defaultCommand = "run"

// parserFor builds the parser of args without the commands they cannot reach
// (cmdline.Grammar): building every command's flags was most of the start-up of a short
// command such as a filter in a pipe. help and __complete describe every command: they get
// the whole CLI.
func parserFor(args []string, streams IO) (*kong.Kong, error) {
	return cmdline.Grammar{
		Whole: reflect.TypeFor[CLI](), Default: defaultCommand,
		WholeFor: []string{"help", "__complete"}, Options: parserOptions(streams),
	}.ParserFor(args)
}
