// Package sandbox runs the agent's commands under Linux Landlock: the modes, what the kernel
// can enforce of them, the rule set of a run (its writable roots, its private temporary
// directory, its network), the in-process check of the file tools, and the small re-exec
// (`base-context sandbox exec`) that restricts itself and then runs the shell. The agent
// itself is never restricted: it must write its session and talk to the provider.
package sandbox

import (
	"fmt"
	"strings"
)

// Mode is how much the tools may do. The constants are in order of strictness: a mode may
// only be replaced by a stricter one while a run lasts (Stricter).
type Mode int

const (
	Off            Mode = iota // no sandbox: today's behaviour
	BestEffort                 // workspace-write with what the kernel has
	WorkspaceWrite             // write only in the writable roots; no TCP unless allowed
	ReadOnly                   // write nowhere; no TCP unless allowed
)

var modeNames = []string{"off", "best-effort", "workspace-write", "read-only"}

// Names are the modes' names, least strict first.
func Names() []string { return append([]string(nil), modeNames...) }

func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return Off, fmt.Errorf("unknown sandbox mode %q (one of %s)", s, strings.Join(modeNames, ", "))
}

// Stricter reports whether m restricts at least as much as other: off < best-effort <
// workspace-write < read-only.
func (m Mode) Stricter(other Mode) bool { return m >= other }

// required reports whether the mode must be enforced whole (fail closed) rather than with
// what the kernel has.
func (m Mode) required() bool { return m == WorkspaceWrite || m == ReadOnly }

// writesWorkspace reports whether the mode lets the tools write in the writable roots.
func (m Mode) writesWorkspace() bool { return m == BestEffort || m == WorkspaceWrite }
