package agent

import (
	"testing"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
)

func openingTexts(msgs []*codec.UserMessage) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Blocks[0].(*codec.TextContent).Text)
	}
	return out
}

// The undelivered messages of a session's last run open the next run's first turn, in the
// order they were sent, before the prompt; a /compact prompt runs alone.
func TestOpening(t *testing.T) {
	undelivered := []session.Undelivered{{Text: "first"}, {Text: "second"}}
	prompt := func(s string) []codec.Content { return []codec.Content{&codec.TextContent{Text: s}} }
	if got := openingTexts(Opening(undelivered, prompt("go on"))); len(got) != 3 || got[0] != "first" || got[1] != "second" || got[2] != "go on" {
		t.Errorf("opening %q", got)
	}
	if got := openingTexts(Opening(undelivered, prompt("/compact"))); len(got) != 1 || got[0] != "/compact" {
		t.Errorf("a session command's opening %q", got)
	}
}
