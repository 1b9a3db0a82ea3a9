// Package terminal is what base-context shows on a terminal: whether a stream is one and how
// wide it is, the status line of a run on stderr, and the answer streamed as it arrives.
package terminal

import (
	"os"

	"golang.org/x/term"
)

// Is reports whether f is a terminal. A character device that is not one (/dev/null) is
// not: the status line would be written to it for nothing.
func Is(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// DefaultWidth is the width assumed for a terminal that does not say its own.
const DefaultWidth = 80

// Width is the number of columns of the terminal f, DefaultWidth when it does not say.
func Width(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return DefaultWidth
	}
	return w
}
