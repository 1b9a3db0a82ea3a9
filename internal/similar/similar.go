// Package similar measures how far apart two words are, for the "did you mean" of a
// mistyped command, event type or session id.
package similar

import (
	"sort"
	"strings"
)

// Distance is the optimal string alignment distance of a and b, in runes: insertions,
// deletions, substitutions and transpositions of neighbours each count one (a swap of two
// letters is the commonest typo, so it counts as one).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Closest orders the names like query: those that contain it first (a part of a model id,
// "sonnet"), then those within a few edits of it, closest first; names like neither are
// left out. Case does not matter.
func Closest(query string, names []string) []string {
	q := strings.ToLower(query)
	maxEdits := max(2, len([]rune(q))/5)
	type scored struct {
		name string
		rank int
	}
	var found []scored
	for _, n := range names {
		l := strings.ToLower(n)
		switch d := Distance(q, l); {
		case strings.Contains(l, q):
			found = append(found, scored{n, -1})
		case d <= maxEdits:
			found = append(found, scored{n, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].rank < found[j].rank })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}
