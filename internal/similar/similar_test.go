package similar

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"sessions", "sessions", 0},
		{"sesions", "sessions", 1},
		{"hlep", "help", 1}, // a transposition is one edit
		{"abcd", "abdc", 1},
		{"hello", "help", 2},
		{"kitten", "sitting", 3},
		{"0194", "0193", 1},
		{"", "run", 3},
		{"stop", "", 4},
		{"mesage_end", "message_end", 1},
		{"héllo", "hello", 1}, // runes, not bytes
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	ids := []string{"claude-sonnet-5-5", "claude-opus-5", "claude-sonnet-4-5", "gpt-5", "gpt-4o", "gemini-2.5-pro"}
	for _, c := range []struct {
		query string
		want  string
	}{
		{"sonnet", "claude-sonnet-5-5, claude-sonnet-4-5"}, // a part of the id
		{"SONNET", "claude-sonnet-5-5, claude-sonnet-4-5"},
		{"gpt-99", "gpt-5, gpt-4o"},        // two edits away
		{"gtp-5", "gpt-5"},                 // a swap
		{"claude-opus-5", "claude-opus-5"}, // itself
		{"llama", ""},                      // nothing like it
		{"gemini-2.5-pr", "gemini-2.5-pro"},
	} {
		if got := strings.Join(Closest(c.query, ids), ", "); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}
