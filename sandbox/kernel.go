package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ABIVariable caps the Landlock ABI version the program believes the kernel has. It is for
// tests only: they show, on a kernel with Landlock, what happens on one without it or with an
// older ABI. It can only lower what the kernel reports, so it never grants anything.
const ABIVariable = "BASE_CONTEXT_TEST_LANDLOCK_ABI"

// Landlock ABI versions that bring what the modes rely on.
const (
	abiFilesystem = 1  // read, write, create, remove, execute beneath a path
	abiTruncate   = 3  // truncate(2) and O_TRUNC
	abiTCP        = 4  // TCP connect and bind
	abiScopes     = 6  // signals and abstract unix sockets leaving the sandbox
	abiUDP        = 10 // UDP bind, connect and send
)

// Kernel is what the running kernel can enforce.
type Kernel struct {
	Release string // `uname -r`, or the operating system's name off Linux
	ABI     int    // the Landlock ABI version; 0: no Landlock
	Capped  bool   // ABI was lowered by ABIVariable
}

// Probe asks the kernel which Landlock ABI it has (landlock_create_ruleset).
func Probe() Kernel {
	k := Kernel{Release: release(), ABI: detectABI()}
	if v, err := strconv.Atoi(os.Getenv(ABIVariable)); err == nil && v >= 0 && v < k.ABI {
		k.ABI, k.Capped = v, true
	}
	return k
}

// String names the kernel and its Landlock, for messages.
func (k Kernel) String() string {
	s := k.Release
	if k.ABI == 0 {
		s += ", without Landlock"
	} else {
		s += fmt.Sprintf(", Landlock ABI %d", k.ABI)
	}
	if k.Capped {
		s += " (capped by " + ABIVariable + ")"
	}
	return s
}

// Missing lists what mode needs and this kernel cannot enforce; network says whether the
// network is allowed (--sandbox-network), so that TCP rules are not needed. Empty: the mode
// holds whole.
func (k Kernel) Missing(mode Mode, network bool) []string {
	if mode == Off {
		return nil
	}
	if k.ABI < abiFilesystem {
		return []string{"Landlock itself (not built into this kernel, or not enabled at boot: add landlock to the lsm= boot parameter)"}
	}
	var out []string
	if k.ABI < abiTruncate {
		out = append(out, fmt.Sprintf("truncation rules (Landlock ABI %d): truncate(2) could shorten files outside the writable roots", abiTruncate))
	}
	if !network && k.ABI < abiTCP {
		out = append(out, fmt.Sprintf("TCP network rules (Landlock ABI %d): commands could connect and listen", abiTCP))
	}
	return out
}

// CheckError is why a mode cannot be enforced here: it exits 2 (a startup error).
type CheckError struct {
	Mode    Mode
	Kernel  Kernel
	Missing []string
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("--sandbox %s cannot be enforced on this kernel (%s): it lacks %s; use --sandbox best-effort to run with what it has, or --sandbox off",
		e.Mode, e.Kernel, strings.Join(e.Missing, "; "))
}

// ExitCode is a usage error's status: the run stops before the first model call.
func (e *CheckError) ExitCode() int { return 2 }

// Require checks that the kernel enforces mode: a required mode (read-only, workspace-write)
// it cannot enforce whole is a *CheckError; best-effort and off always pass (NotEnforced
// says what best-effort lacks).
func (k Kernel) Require(mode Mode, network bool) error {
	if missing := k.Missing(mode, network); mode.required() && len(missing) > 0 {
		return &CheckError{Mode: mode, Kernel: k, Missing: missing}
	}
	return nil
}

// Report is what `sandbox check` prints: what this kernel enforces, one line each, and
// whether workspace-write can be enforced (ok).
func (k Kernel) Report() (text string, ok bool) {
	var b strings.Builder
	yes := func(abi int) string {
		if k.ABI >= abi {
			return "enforced"
		}
		return fmt.Sprintf("not enforced (needs Landlock ABI %d)", abi)
	}
	fmt.Fprintf(&b, "kernel: %s\n", k.Release)
	if k.ABI == 0 {
		b.WriteString("landlock: none (not built in, or not enabled at boot)\n")
	} else {
		fmt.Fprintf(&b, "landlock: ABI %d", k.ABI)
		if k.Capped {
			b.WriteString(" (capped by " + ABIVariable + ", for tests)")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "filesystem writes outside the writable roots: %s\n", yes(abiFilesystem))
	fmt.Fprintf(&b, "truncation outside the writable roots: %s\n", yes(abiTruncate))
	fmt.Fprintf(&b, "TCP connect and bind: %s\n", yes(abiTCP))
	fmt.Fprintf(&b, "UDP: %s\n", yes(abiUDP))
	fmt.Fprintf(&b, "signals and abstract unix sockets leaving the sandbox: %s\n", yes(abiScopes))
	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		if missing := k.Missing(m, false); len(missing) > 0 {
			fmt.Fprintf(&b, "%s: cannot be enforced: lacks %s\n", m, strings.Join(missing, "; "))
		} else {
			fmt.Fprintf(&b, "%s: can be enforced\n", m)
		}
	}
	ok = len(k.Missing(WorkspaceWrite, false)) == 0
	if ok {
		b.WriteString("verdict: ok, --sandbox workspace-write and read-only hold on this kernel\n")
	} else {
		b.WriteString("verdict: --sandbox workspace-write cannot be enforced on this kernel; best-effort would run with what it has\n")
	}
	return b.String(), ok
}
