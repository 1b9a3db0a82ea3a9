package cli

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// In a fresh process (this test binary run again for this test alone) huge pages are refused
// from the package's initialization on, before any command runs, and allowHugePages gives
// them back.
func TestHugePagesRefusedFromStart(t *testing.T) {
	if os.Getenv("BASE_CONTEXT_THP_CHILD") == "1" {
		if got, err := unix.PrctlRetInt(unix.PR_GET_THP_DISABLE, 0, 0, 0, 0); err != nil || got != 1 {
			t.Fatalf("PR_GET_THP_DISABLE after init = %d, %v; want 1", got, err)
		}
		allowHugePages()
		if got, err := unix.PrctlRetInt(unix.PR_GET_THP_DISABLE, 0, 0, 0, 0); err != nil || got != 0 {
			t.Fatalf("PR_GET_THP_DISABLE after allowHugePages = %d, %v; want 0", got, err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugePagesRefusedFromStart$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BASE_CONTEXT_THP_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
