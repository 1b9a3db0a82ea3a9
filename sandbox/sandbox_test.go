package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestModesOrderAndNames(t *testing.T) {
	for i, name := range Names() {
		m, err := ParseMode(name)
		if err != nil || m != Mode(i) || m.String() != name {
			t.Errorf("ParseMode(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := ParseMode("strict"); err == nil || !strings.Contains(err.Error(), `unknown sandbox mode "strict"`) {
		t.Errorf("ParseMode(strict): %v", err)
	}
	order := []Mode{Off, BestEffort, WorkspaceWrite, ReadOnly}
	for i, a := range order {
		for j, b := range order {
			if got := a.Stricter(b); got != (i >= j) {
				t.Errorf("%s.Stricter(%s) = %v", a, b, got)
			}
		}
	}
}

// TestRequire is the fail-closed decision: which kernel enforces which mode.
func TestRequire(t *testing.T) {
	cases := []struct {
		abi     int
		mode    Mode
		network bool
		refused string // a word of the reason; "" when it runs
	}{
		{0, Off, false, ""},
		{0, BestEffort, false, ""},
		{0, WorkspaceWrite, false, "Landlock itself"},
		{0, ReadOnly, true, "Landlock itself"},
		{1, WorkspaceWrite, true, "truncation"},
		{2, ReadOnly, true, "truncation"},
		{3, WorkspaceWrite, false, "TCP network rules"},
		{3, WorkspaceWrite, true, ""},
		{3, ReadOnly, false, "TCP network rules"},
		{4, WorkspaceWrite, false, ""},
		{4, ReadOnly, false, ""},
		{7, WorkspaceWrite, false, ""},
	}
	for _, c := range cases {
		k := Kernel{Release: "Linux 9.9", ABI: c.abi}
		err := k.Require(c.mode, c.network)
		var ce *CheckError
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("ABI %d %s network=%v: refused: %v", c.abi, c.mode, c.network, err)
		case c.refused != "" && !errors.As(err, &ce):
			t.Errorf("ABI %d %s network=%v: not refused (%v)", c.abi, c.mode, c.network, err)
		case c.refused != "":
			msg := err.Error()
			if !strings.Contains(msg, c.refused) || !strings.Contains(msg, "Linux 9.9") || !strings.HasPrefix(msg, "--sandbox "+c.mode.String()+" cannot be enforced") {
				t.Errorf("ABI %d %s: message %q", c.abi, c.mode, msg)
			}
			if ce.ExitCode() != 2 {
				t.Errorf("exit code %d", ce.ExitCode())
			}
		}
	}
	// best-effort says what it lacks without refusing.
	if m := (Kernel{ABI: 3}).Missing(BestEffort, false); len(m) != 1 || !strings.Contains(m[0], "TCP") {
		t.Errorf("Missing(best-effort) at ABI 3 = %q", m)
	}
}

func TestProbeCap(t *testing.T) {
	real := Probe()
	t.Setenv(ABIVariable, "0")
	k := Probe()
	if k.ABI != 0 || (real.ABI > 0 && !k.Capped) {
		t.Errorf("capped to 0: %+v (real %+v)", k, real)
	}
	t.Setenv(ABIVariable, "99") // never raises
	if k := Probe(); k.ABI != real.ABI || k.Capped {
		t.Errorf("cap above the kernel's: %+v, real %+v", k, real)
	}
}

func TestReport(t *testing.T) {
	text, ok := Kernel{Release: "Linux 9.9", ABI: 3}.Report()
	if ok || !strings.Contains(text, "TCP connect and bind: not enforced (needs Landlock ABI 4)") || !strings.Contains(text, "verdict: --sandbox workspace-write cannot be enforced") {
		t.Errorf("ABI 3: ok=%v\n%s", ok, text)
	}
	text, ok = Kernel{Release: "Linux 9.9", ABI: 7}.Report()
	if !ok || !strings.Contains(text, "landlock: ABI 7\n") || !strings.Contains(text, "UDP: not enforced (needs Landlock ABI 10)") {
		t.Errorf("ABI 7: ok=%v\n%s", ok, text)
	}
}

// workspace makes ws (the working directory) and out beside it, with symlinks in ws that lead
// out, and opens a workspace-write sandbox on it.
func workspace(t *testing.T, mode Mode) (sb *Sandbox, ws, out string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out = filepath.Join(base, "ws"), filepath.Join(base, "ws-out")
	for _, d := range []string{filepath.Join(ws, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Symlink(out, filepath.Join(ws, "link")))
	must(t, os.Symlink(filepath.Join(out, "new.txt"), filepath.Join(ws, "dangling")))
	must(t, os.Symlink("sub", filepath.Join(ws, "inner")))
	t.Setenv("TMPDIR", base)
	sb, err = Open(mode, ws, nil, false, Kernel{Release: "test", ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb, ws, out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestCheckWrite(t *testing.T) {
	sb, ws, out := workspace(t, WorkspaceWrite)
	allowed := []string{
		filepath.Join(ws, "a.txt"),
		filepath.Join(ws, "sub", "b.txt"),
		filepath.Join(ws, "new", "deeper", "c.txt"), // folders the write creates
		filepath.Join(ws, "inner", "d.txt"),         // a symlink that stays inside
		filepath.Join(sb.TempDir(), "t.txt"),
	}
	for _, p := range allowed {
		if err := sb.CheckWrite(p); err != nil {
			t.Errorf("CheckWrite(%s): %v", p, err)
		}
	}
	refused := map[string]string{
		"/etc/passwd":                        "/etc/passwd",
		filepath.Join(out, "x.txt"):          filepath.Join(out, "x.txt"),
		filepath.Join(ws, "link", "x.txt"):   filepath.Join(out, "x.txt"),   // through a symlink
		filepath.Join(ws, "dangling"):        filepath.Join(out, "new.txt"), // a symlink to a file to create
		filepath.Join(ws, "..", "ws-out/y"):  filepath.Join(out, "y"),       // a sibling that shares the prefix
		filepath.Join(filepath.Dir(ws), "z"): filepath.Join(filepath.Dir(ws), "z"),
	}
	for p, reached := range refused {
		err := sb.CheckWrite(p)
		var de *DeniedError
		if !errors.As(err, &de) {
			t.Errorf("CheckWrite(%s) = %v, want a refusal", p, err)
			continue
		}
		if want := "Permission denied (sandbox: workspace-write): " + reached; err.Error() != want {
			t.Errorf("CheckWrite(%s) = %q, want %q", p, err, want)
		}
	}
}

func TestReadOnlyAndOff(t *testing.T) {
	sb, ws, _ := workspace(t, ReadOnly)
	if err := sb.CheckWrite(filepath.Join(ws, "a.txt")); err == nil || err.Error() != "Permission denied (sandbox: read-only): "+filepath.Join(ws, "a.txt") {
		t.Errorf("read-only inside: %v", err)
	}
	if sb.TempDir() != "" || sb.Header().WritableRoots != nil {
		t.Errorf("read-only has writable roots: %q %q", sb.TempDir(), sb.Header().WritableRoots)
	}
	var none *Sandbox
	if err := none.CheckWrite("/etc/passwd"); err != nil || none.Mode() != Off || none.Header() != nil {
		t.Errorf("a nil sandbox restricts: %v", err)
	}
	off, _, _ := workspace(t, Off)
	if err := off.CheckWrite("/etc/passwd"); err != nil || off.Header() != nil || off.TempDir() != "" {
		t.Errorf("off restricts: %v", err)
	}
}

func TestTightenAndClose(t *testing.T) {
	sb, ws, _ := workspace(t, Off)
	if err := sb.Tighten(BestEffort); err != nil {
		t.Fatal(err)
	}
	tmp := sb.TempDir()
	if fi, err := os.Stat(tmp); err != nil || !fi.IsDir() {
		t.Fatalf("no temporary directory: %v", err)
	}
	if got := sb.Header(); got.Mode != "best-effort" || !slices.Equal(got.WritableRoots, []string{ws, tmp}) {
		t.Errorf("header %+v", got)
	}
	if err := sb.Tighten(Off); err == nil || !strings.Contains(err.Error(), "it is best-effort, off is looser") {
		t.Errorf("looser: %v", err)
	}
	if err := sb.Tighten(ReadOnly); err != nil {
		t.Fatal(err)
	}
	if err := sb.Tighten(WorkspaceWrite); err == nil {
		t.Error("read-only loosened to workspace-write")
	}
	must(t, os.WriteFile(filepath.Join(tmp, "left"), nil, 0o644))
	must(t, sb.Close())
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary directory outlives the run: %v", err)
	}
	// A kernel that cannot enforce the mode: refused, the mode kept.
	weak, err := Open(BestEffort, ws, nil, false, Kernel{ABI: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer weak.Close()
	if len(weak.NotEnforced()) != 1 {
		t.Errorf("best-effort at ABI 3 lacks %q", weak.NotEnforced())
	}
	var ce *CheckError
	if err := weak.Tighten(WorkspaceWrite); !errors.As(err, &ce) || weak.Mode() != BestEffort {
		t.Errorf("workspace-write at ABI 3: %v, mode %s", err, weak.Mode())
	}
}

func TestOpenAddDir(t *testing.T) {
	base := t.TempDir()
	if _, err := Open(WorkspaceWrite, base, []string{"missing"}, false, Kernel{ABI: 7}); err == nil ||
		!strings.HasPrefix(err.Error(), "--add-dir "+filepath.Join(base, "missing")+": no such file") {
		t.Errorf("a missing --add-dir: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(base, "f"), nil, 0o644))
	if _, err := Open(WorkspaceWrite, base, []string{"f"}, false, Kernel{ABI: 7}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as --add-dir: %v", err)
	}
}

func TestNote(t *testing.T) {
	sb, _, _ := workspace(t, WorkspaceWrite)
	if n := sb.Note("sh: x: Permission denied\n", true); !strings.HasPrefix(n, "Permission denied (sandbox: workspace-write): the command was refused by the sandbox") ||
		!strings.HasSuffix(n, ", and TCP connections are refused; it cannot be lifted from inside the run") {
		t.Errorf("note %q", n)
	}
	for _, c := range []struct {
		out    string
		failed bool
	}{{"sh: x: Permission denied\n", false}, {"no such file\n", true}} {
		if n := sb.Note(c.out, c.failed); n != "" {
			t.Errorf("Note(%q, %v) = %q", c.out, c.failed, n)
		}
	}
	var none *Sandbox
	if n := none.Note("Permission denied", true); n != "" {
		t.Errorf("off: %q", n)
	}
}

func TestWrap(t *testing.T) {
	sb, ws, _ := workspace(t, WorkspaceWrite)
	cmd := exec.Command("/bin/sh", "-c", "true")
	must(t, sb.Wrap(cmd))
	self, _ := os.Executable()
	want := []string{"base-context", "sandbox", "exec", "--mode", "workspace-write", "--add-dir", ws, "--add-dir", sb.TempDir(), "--", "/bin/sh", "-c", "true"}
	if cmd.Path != self || !slices.Equal(cmd.Args, want) {
		t.Errorf("wrapped: %s %q", cmd.Path, cmd.Args)
	}
	if cmd.Env[len(cmd.Env)-1] != "TMPDIR="+sb.TempDir() {
		t.Errorf("TMPDIR not the run's: %q", cmd.Env[len(cmd.Env)-1])
	}
	plain := exec.Command("/bin/sh", "-c", "true")
	var none *Sandbox
	must(t, none.Wrap(plain))
	if plain.Path != "/bin/sh" || plain.Env != nil {
		t.Errorf("off wraps: %s %q", plain.Path, plain.Args)
	}
}
