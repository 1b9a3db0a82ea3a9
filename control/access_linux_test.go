package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Even where the file modes would let another user in (a folder made 0755 by hand, say),
// the run asks the kernel who called (SO_PEERCRED) and refuses other users.
func TestPeerCredentialsRefuseAnotherUser(t *testing.T) {
	dir := shortDir(t)
	srv, run, e := serve(t, dir, "open")
	defer srv.Close()
	for path, mode := range map[string]os.FileMode{filepath.Dir(dir): 0o755, dir: 0o755, e.Socket: 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	out := otherUserSends(t, e.Socket)
	if !strings.Contains(out, "err=permission denied: the session belongs to another user") {
		t.Errorf("another user's send: %s", out)
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if len(run.sent) != 0 {
		t.Errorf("another user's message was taken: %q", run.sent)
	}
}
