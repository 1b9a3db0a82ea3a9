package cli

import (
	"fmt"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/cmdline"
)

// CompletionCmd is `completion bash|zsh|fish`.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

// Run prints the script.
func (c *CompletionCmd) Run(streams *IO) error {
	_, err := fmt.Fprint(streams.Out, cmdline.CompletionScripts[c.Shell])
	return err
}

// CompleteCmd is the hidden `__complete WORD…`: the candidates for the last word, one a line.
type CompleteCmd struct {
	Words []string `arg:"" optional:"" passthrough:"" help:"The words after base-context; the last is being completed."`
}

// Run prints the commands, flags or flag values that may follow.
func (c *CompleteCmd) Run(k *kong.Context, streams *IO) error {
	for _, cand := range cmdline.Completions(k.Model, c.Words, defaultCommand) {
		if _, err := fmt.Fprintln(streams.Out, cand); err != nil {
			return err
		}
	}
	return nil
}
