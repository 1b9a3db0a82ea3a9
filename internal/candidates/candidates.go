// Package candidates writes the lists of candidates that error messages offer ("did you
// mean", "one of", "… match it"): at most Max of them, and how many more there are, so that
// an error among 20,000 sessions is still one short line.
package candidates

import (
	"fmt"
	"strings"
)

// Max is how many candidates an error lists.
const Max = 10

// Join lists items separated by ", ": the first Max, then "… and N more" when there are more.
func Join(items []string) string {
	if len(items) <= Max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(items[:Max], ", "), len(items)-Max)
}
