package cli

import (
	"fmt"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// ValidateCmd is `filter validate`.
type ValidateCmd struct {
	FilterIO
	Pass   bool `help:"Pass the stream through to stdout unchanged, to check it inside a pipe (default: nothing on stdout; -o FILE implies it)."`
	Strict bool `help:"Also report names docs/stream.md does not define: event types, message roles, content block and update types."`
}

// Run runs the filter.
func (c *ValidateCmd) Run(streams *IO) error {
	var v *stages.Validator
	// The validator reports lines that are not JSON objects itself, as violations, and
	// drops them itself with --skip-invalid, so that every line keeps its number.
	job := c.job(streams, !c.Pass)
	job.SkipInvalid = false
	if _, err := job.Run(func(inputs []stages.Input, lw *codec.LineWriter, opts stages.RunOptions) (stages.RunStats, error) {
		v = stages.NewValidator(stages.ValidateOptions{
			Strict: c.Strict, SkipInvalid: c.SkipInvalid,
			Report: func(x stages.Violation) { opts.Report(x.String()) },
		})
		return stages.Run(inputs, lw, v, stages.RunOptions{BeforeWait: opts.BeforeWait})
	}); err != nil {
		return err
	}
	r := v.Result()
	if err := r.Err(c.Strict); err != nil {
		return err
	}
	fmt.Fprintf(streams.Err, "valid: %s\n", r.Summary(c.Strict))
	return nil
}
