package cli

import (
	"bytes"
	"testing"

	"github.com/basecontext/base-context/internal/cmdline"
)

// Which first arguments are refused as mistyped commands, and which stay prompts.
func TestCheckCommandTypo(t *testing.T) {
	var cl CLI
	parser, err := NewParser(&cl, IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args    []string
		refused bool
	}{
		{[]string{"sesions", "list"}, true},
		{[]string{"hlep"}, true},
		{[]string{"lsit"}, true},
		{[]string{"--model", "compct", "hi"}, false}, // a flag's value
		{[]string{"--model", "x", "compct"}, true},
		{[]string{"-p", "filtr"}, true},
		{[]string{"--mode=json", "filtr"}, true},
		{[]string{"sessions", "list"}, false},
		{[]string{"hello"}, false},
		{[]string{"test"}, false},
		{[]string{"ls"}, false},
		{[]string{"/compact"}, false},
		{[]string{"sesions list"}, false},
		{[]string{"--", "sesions"}, false},
		{[]string{"Fix", "the", "tests"}, false},
	} {
		err := cmdline.CheckCommandTypo(parser.Model, c.args, defaultCommand)
		if (err != nil) != c.refused {
			t.Errorf("%q: error %v, want refused %v", c.args, err, c.refused)
		}
	}
}
