package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// switch_session reads only regular files: /dev/zero or a FIFO named by a client would be
// read without end (growing without bound, and no other command answered meanwhile).
func TestRPCSwitchSessionRefusesWhatIsNotAFile(t *testing.T) {
	p := startRPC(t, "")
	p.next() // the header
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for path, what := range map[string]string{"/dev/zero": "a device", fifo: "a named pipe", p.dir: "a directory"} {
		r := p.call("sw", map[string]any{"type": "switch_session", "sessionPath": path})
		if r.Get("success").Bool() || !strings.Contains(r.Get("error").Str, path+" is "+what+", not a regular file") {
			t.Errorf("switch_session %s: %s", path, r.Raw)
		}
	}
	// The server still answers.
	if r := p.call("st", map[string]any{"type": "get_state"}); !r.Get("success").Bool() {
		t.Errorf("get_state after the refusals: %s", r.Raw)
	}
	p.in.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
	_ = os.Remove(fifo)
}
