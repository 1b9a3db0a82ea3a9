package candidates

import (
	"fmt"
	"testing"
)

func TestJoinListsAtMostMaxAndCountsTheRest(t *testing.T) {
	items := func(n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprint(i))
		}
		return s
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, ""},
		{1, "0"},
		{10, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"},
		{11, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … and 1 more"},
		{20000, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … and 19990 more"},
	} {
		if got := Join(items(c.n)); got != c.want {
			t.Errorf("Join of %d items = %q, want %q", c.n, got, c.want)
		}
	}
}
