package cli

import (
	"os"
	"path/filepath"
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
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
	opts, err := c.options()
	if err != nil {
		return err
	}
	return c.run(streams, stages.NewHeader(opts))
}

// options fills the defaults and notes which fields were given, for --force.
func (c *HeaderCmd) options() (stages.HeaderOptions, error) {
	h := codec.Header{Version: session.Version, ID: c.ID, Cwd: c.Cwd}
	var given []string
	if c.ID != "" {
		given = append(given, "id")
	} else {
		h.ID = session.NewID()
	}
	if c.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, c.Timestamp)
		if err != nil {
			return stages.HeaderOptions{}, Fail(ExitUsage, "--timestamp: expected RFC 3339 like 2026-12-02T14:02:42.971Z: "+err.Error())
		}
		h.Timestamp = session.NowISO(t)
		given = append(given, "timestamp")
	} else {
		h.Timestamp = session.NowISO(time.Now())
	}
	var err error
	if c.Cwd != "" {
		h.Cwd, err = filepath.Abs(c.Cwd)
		given = append(given, "cwd")
	} else {
		h.Cwd, err = os.Getwd()
	}
	if err != nil {
		return stages.HeaderOptions{}, Fail(ExitUsage, err.Error())
	}
	if c.Force && len(given) == 0 {
		return stages.HeaderOptions{}, Fail(ExitUsage, "--force replaces the fields given by --id, --cwd or --timestamp: give at least one")
	}
	opts := stages.HeaderOptions{Header: h, Stamp: c.Stamp, Seq: c.Seq}
	if c.Force {
		opts.Replace = given
	}
	return opts, nil
}
