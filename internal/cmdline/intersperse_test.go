package cmdline

import (
	"slices"
	"testing"

	"github.com/alecthomas/kong"
)

type testCLI struct {
	Run struct {
		Mode   string   `enum:"text,json" default:"text"`
		Print  bool     `short:"p"`
		Prompt []string `arg:"" optional:""`
	} `cmd:"" default:"withargs"`
	Filter struct {
		Deltas struct {
			Output string   `short:"o"`
			Quiet  bool     `short:"q"`
			Files  []string `arg:"" optional:""`
		} `cmd:""`
	} `cmd:""`
	Complete struct {
		Words []string `arg:"" optional:"" passthrough:""`
	} `cmd:"" name:"__complete"`
}

func TestIntersperseMovesFlagsBeforeThePositionals(t *testing.T) {
	k, err := kong.New(&testCLI{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want []string }{
		{[]string{"filter", "deltas", "a", "-o", "o", "b"}, []string{"filter", "deltas", "-o", "o", "a", "b"}},
		{[]string{"filter", "deltas", "a", "-o=o", "b"}, []string{"filter", "deltas", "-o=o", "a", "b"}},
		{[]string{"first", "--mode", "json", "second"}, []string{"--mode", "json", "first", "second"}},
		{[]string{"first", "-p", "filter"}, []string{"-p", "first", "filter"}},
		{[]string{"first", "--mode", "json", "--", "-x"}, []string{"--mode", "json", "--", "first", "-x"}},
		{[]string{"--", "-x", "--mode", "json"}, []string{"--", "-x", "--mode", "json"}},
		{[]string{"__complete", "filter", "--o"}, []string{"__complete", "filter", "--o"}},
		{[]string{"--mode", "json", "hi"}, []string{"--mode", "json", "hi"}},
		// A flag whose value is missing is left where it is, for kong to refuse: moved in
		// front, it would take a positional (an input file) as its value.
		{[]string{"filter", "deltas", "in", "-o"}, []string{"filter", "deltas", "in", "-o"}},
		{[]string{"fix", "it", "--mode"}, []string{"fix", "it", "--mode"}},
		// A cluster of short flags takes the next argument when its last letter does.
		{[]string{"filter", "deltas", "a", "-qo", "out", "b"}, []string{"filter", "deltas", "-qo", "out", "a", "b"}},
		{[]string{"filter", "deltas", "a", "-qoout", "b"}, []string{"filter", "deltas", "-qoout", "a", "b"}},
		{[]string{"filter", "deltas", "a", "--output=x", "b"}, []string{"filter", "deltas", "--output=x", "a", "b"}},
	} {
		if got := Intersperse(k.Model, c.args, "run"); !slices.Equal(got, c.want) {
			t.Errorf("Intersperse(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
