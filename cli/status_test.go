package cli

import (
	"bytes"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// Who gets a status line: text mode on a terminal, any mode with --verbose, nobody with --quiet.
func TestStatusLineWhen(t *testing.T) {
	for _, c := range []struct {
		flags    StatusFlags
		mode     string
		terminal bool
		want     bool
	}{
		{StatusFlags{}, "text", true, true},
		{StatusFlags{}, "text", false, false},
		{StatusFlags{}, "json", true, false},
		{StatusFlags{Verbose: true}, "json", false, true},
		{StatusFlags{Verbose: true}, "text", false, true},
		{StatusFlags{Quiet: true}, "text", true, false},
	} {
		var buf bytes.Buffer
		s, _ := c.flags.start(&IO{Err: &buf, StderrIsTerminal: c.terminal}, c.mode, 0, nil)
		s.Event(&codec.TurnStart{})
		if got := buf.Len() > 0; got != c.want {
			t.Errorf("%+v mode %s terminal %v: status line %v, want %v", c.flags, c.mode, c.terminal, got, c.want)
		}
	}
}
