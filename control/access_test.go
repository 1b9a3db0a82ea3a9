package control

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is the uid and gid the tests run a second user's client as.
const nobody = 65534

// asAnotherUser returns a command that runs this test binary's TestHelperClient as uid
// nobody, with env; it skips the test, saying why, where that cannot be done.
func asAnotherUser(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skipf("skipped: running a client as another user needs root (setpriv --reuid=%d), this is uid %d", nobody, os.Getuid())
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skipf("skipped: no setpriv (util-linux) to run a client as uid %d: %v", nobody, err)
	}
	// The test binary sits in a folder only root may enter: nobody runs a copy.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(publicDir(t), "control.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, fmt.Sprintf("--reuid=%d", nobody), fmt.Sprintf("--regid=%d", nobody), "--clear-groups",
		bin, "-test.run=^TestHelperClient$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// publicDir is a temporary folder every user may enter.
func publicDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctl-public")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHelperClient is the other user's client: it sends a message to the run on
// $CONTROL_TEST_SOCKET and prints what came of it. It does nothing in a normal test run.
func TestHelperClient(t *testing.T) {
	socket := os.Getenv("CONTROL_TEST_SOCKET")
	if socket == "" {
		return
	}
	_, err := Call(socket, Request{Op: OpSend, Kind: KindSteer, Text: "from another user"})
	fmt.Printf("uid=%d err=%v\n", os.Getuid(), err)
}

func otherUserSends(t *testing.T, socket string) string {
	t.Helper()
	cmd := asAnotherUser(t, "CONTROL_TEST_SOCKET="+socket)
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "failed to execute") {
		t.Skipf("skipped: uid %d cannot run a copy of the test binary (a noexec %s?): %s", nobody, os.TempDir(), out)
	}
	if err != nil {
		t.Fatalf("the other user's client: %v\n%s", err, out)
	}
	got := string(out)
	if !strings.Contains(got, fmt.Sprintf("uid=%d ", nobody)) {
		t.Fatalf("the client did not run as uid %d: %s", nobody, got)
	}
	return got
}

// Another user cannot reach the socket: the registry folder is 0700 and the socket 0600.
func TestAnotherUserCannotConnect(t *testing.T) {
	dir := shortDir(t)
	srv, run, e := serve(t, dir, "private")
	defer srv.Close()
	// The temporary folder above the registry is open to all, so only our modes stand in
	// the way.
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	out := otherUserSends(t, e.Socket)
	if !strings.Contains(out, "err=control: dial unix "+e.Socket+": connect: permission denied") {
		t.Errorf("another user's send: %s", out)
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if len(run.sent) != 0 {
		t.Errorf("another user's message was taken: %q", run.sent)
	}
}

// Ids name files in the registry folder: one that could reach outside it, or be taken for
// the file of another id (they are told apart by extensions), is refused everywhere.
func TestBadSessionIDs(t *testing.T) {
	dir := shortDir(t)
	srv, _, live := serve(t, dir, "live")
	defer srv.Close()
	// A file beside the registry folder, and files inside it, that bad ids would name.
	victim := filepath.Join(filepath.Dir(dir), "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	entry := func(id string) []byte {
		data, _ := json.Marshal(Entry{ID: id, PID: os.Getpid(), Socket: live.Socket, Mode: ModeClient})
		return data
	}
	for _, name := range []string{"live.events", "a.b"} {
		if err := os.WriteFile(filepath.Join(dir, name), entry(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"", "../victim", "a/b", `a\b`, "a.b", "live.events", ".", ".."} {
		if err := Register(dir, Entry{ID: id, PID: os.Getpid(), Socket: live.Socket}); err == nil || !strings.Contains(err.Error(), "invalid session id") {
			t.Errorf("Register(%q): %v", id, err)
		}
		if _, ok := Get(dir, id); ok {
			t.Errorf("Get(%q) found an entry", id)
		}
		if err := Unregister(dir, id); err != nil {
			t.Errorf("Unregister(%q): %v", id, err)
		}
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "keep\n" {
		t.Errorf("the file outside the registry: %q %v", data, err)
	}
	for _, name := range []string{"live.events", "a.b"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Running lists only the entries of good ids whose file names them.
	if err := os.WriteFile(filepath.Join(dir, "alias"), entry("live"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Running(dir)
	if err != nil || len(got) != 1 || got[0].ID != "live" {
		t.Errorf("Running: %+v %v", got, err)
	}
	if _, ok := Get(dir, "alias"); ok {
		t.Error("Get of an entry whose id is not its name")
	}
}

// The private socket folder: made 0700, made 0700 again when someone opened it up, and
// refused when it is not a folder of this user (a file, a link to elsewhere, another
// user's folder), so no socket is ever put where others can reach it.
func TestPrivateSocketFolder(t *testing.T) {
	base := publicDir(t)
	mode := func(dir string) os.FileMode {
		st, err := os.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	fresh := filepath.Join(base, "fresh")
	if err := privateDir(fresh); err != nil || mode(fresh) != 0o700 {
		t.Errorf("a new folder: %v, mode %v", err, mode(fresh))
	}
	opened := filepath.Join(base, "opened")
	os.Mkdir(opened, 0o777)
	os.Chmod(opened, 0o777)
	if err := privateDir(opened); err != nil || mode(opened) != 0o700 {
		t.Errorf("a folder opened to all: %v, mode %v", err, mode(opened))
	}
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	link := filepath.Join(base, "link")
	os.Symlink(fresh, link)
	for _, path := range []string{file, link} {
		if err := privateDir(path); err == nil || !strings.Contains(err.Error(), "is not a folder of this user") {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
	}
	// The registry folder too is made private again.
	reg := filepath.Join(base, "run")
	os.Mkdir(reg, 0o755)
	if err := MakeDir(reg); err != nil || mode(reg) != 0o700 {
		t.Errorf("the registry folder: %v, mode %v", err, mode(reg))
	}

	if os.Getuid() != 0 {
		t.Skipf("skipped: a folder of another user needs root to make (chown), this is uid %d", os.Getuid())
	}
	theirs := filepath.Join(base, "theirs")
	os.Mkdir(theirs, 0o700)
	if err := os.Chown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(theirs); err == nil || !strings.Contains(err.Error(), "is not a folder of this user") {
		t.Errorf("another user's folder: %v", err)
	}
	// SocketPath takes the private folder of $TMPDIR, and refuses one planted by another user.
	t.Setenv("TMPDIR", base)
	planted := filepath.Join(base, fmt.Sprintf("base-context-%d", os.Getuid()))
	os.Mkdir(planted, 0o777)
	if err := os.Chown(planted, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(base, strings.Repeat("d", 100), "run")
	if p, err := SocketPath(long, "019bd1c5-47a4-7a38-9a2b-1d2e3f4a5b6c"); err == nil && filepath.Dir(p) == planted {
		t.Errorf("SocketPath put the socket in another user's folder: %s", p)
	}
}
