package cli

import (
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/stages"
)

// HeaderCmd is `filter header`.
type HeaderCmd struct {
	FilterIO
	ID        string `name:"id" placeholder:"ID" help:"Session id of the header written (default: a new UUID v7)."`
	Cwd       string `placeholder:"DIR" help:"Working directory of the header written (default: the current one)."`
	Timestamp string `placeholder:"TIME" help:"Time of the header written, RFC 3339 (default: now); written in UTC with milliseconds."`
	Force     bool   `help:"Replace the fields given by --id, --cwd and --timestamp in a header the stream already starts with."`
	Stamp     bool   `help:"Add \"sessionId\" (the header's id) after \"type\" in every later event."`
	Seq       bool   `help:"Add \"seq\", counting the events after the header from 1, after \"type\" (and \"sessionId\")."`
}

// Run runs the filter.
func (c *HeaderCmd) Run(streams *IO) error {
	opts, err := filters.Header{ID: c.ID, Cwd: c.Cwd, Timestamp: c.Timestamp, Force: c.Force, Stamp: c.Stamp, Seq: c.Seq}.Options()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return c.run(streams, stages.NewHeader(opts))
}
