package filters

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// Header is what the flags of filter header give.
type Header struct {
	ID, Cwd, Timestamp string
	Force, Stamp, Seq  bool
}

// Options fills the defaults and notes which fields were given, for --force; an error is a
// flag's bad value.
func (c Header) Options() (stages.HeaderOptions, error) {
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
			return stages.HeaderOptions{}, errors.New("--timestamp: expected RFC 3339 like 2026-12-02T14:02:42.971Z: " + err.Error())
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
		return stages.HeaderOptions{}, err
	}
	if c.Force && len(given) == 0 {
		return stages.HeaderOptions{}, errors.New("--force replaces the fields given by --id, --cwd or --timestamp: give at least one")
	}
	opts := stages.HeaderOptions{Header: h, Stamp: c.Stamp, Seq: c.Seq}
	if c.Force {
		opts.Replace = given
	}
	return opts, nil
}
