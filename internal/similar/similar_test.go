package similar

import "testing"

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
