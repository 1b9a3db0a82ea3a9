package cli

import (
	"fmt"
	"os"

	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/stages"
)

// SelectCmd is `filter select TYPE… [FILE…]`. Kong cannot hold two lists of positionals,
// so both arrive in Files and Run tells them apart: the leading arguments that read as
// event types are the types.
type SelectCmd struct {
	FilterIO
	Not      bool     `help:"Drop the events of the TYPEs named instead of keeping them."`
	Role     []string `placeholder:"ROLE" help:"Keep only the message events (message_start/update/end) of these roles: user, assistant, toolResult, … (repeat, or separate with commas)."`
	Tool     []string `placeholder:"NAME" help:"Keep only the tool execution events of these tools (repeat, or separate with commas)."`
	NoHeader bool     `help:"Drop the session header too (it is kept otherwise, whatever the types, unless --not names session)."`
}

// Run runs the filter.
func (c *SelectCmd) Run(streams *IO) error {
	types, files := filters.SplitTypes(c.Files)
	for _, t := range types {
		if _, err := os.Stat(t); err == nil {
			fmt.Fprintf(streams.Err, "warning: %q is read as an event type; write ./%s to read the file\n", t, t)
		}
	}
	for _, t := range filters.SplitLists(types) {
		if w := filters.UnknownTypeWarning(t); w != "" {
			fmt.Fprintf(streams.Err, "warning: %q: %s\n", t, w)
		}
	}
	c.Files = files
	return c.run(streams, stages.NewSelect(stages.SelectOptions{
		Types: filters.SplitLists(types), Not: c.Not, Roles: filters.SplitLists(c.Role), Tools: filters.SplitLists(c.Tool),
		NoHeader: c.NoHeader,
	}))
}
