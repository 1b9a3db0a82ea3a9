package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/basecontext/base-context/codec"
)

// Spec is what a sandboxed command runs under: the mode, the folders it may write (absolute,
// symlinks resolved) and whether it may use the network.
type Spec struct {
	Mode     Mode
	Writable []string
	Network  bool
}

// Sandbox is the sandbox of one run: the rule set its tools share (bash and the gates run
// under it through Wrap, write and edit check it with CheckWrite) and the run's private
// temporary directory. A nil *Sandbox is off. Its mode may be made stricter while the run
// lasts (Tighten), never looser.
type Sandbox struct {
	kernel Kernel
	roots  []string // the working directory and each --add-dir, resolved

	mu          sync.Mutex
	spec        Spec
	tempDir     string   // the run's TMPDIR; "" until a mode that writes needs one
	notEnforced []string // what best-effort lacks on this kernel
}

// Open makes the sandbox of a run working in cwd: it checks that the kernel enforces mode
// (a *CheckError, status 2, when a required mode cannot hold), resolves the writable roots
// (cwd and addDirs, which must exist) and makes the private temporary directory. Close
// removes that directory.
func Open(mode Mode, cwd string, addDirs []string, network bool, kernel Kernel) (*Sandbox, error) {
	s := &Sandbox{kernel: kernel, spec: Spec{Mode: Off, Network: network}}
	for _, d := range append([]string{cwd}, addDirs...) {
		root, err := resolveRoot(cwd, d)
		if err != nil {
			return nil, err
		}
		s.roots = append(s.roots, root)
	}
	if err := s.Tighten(mode); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenNamed is Open of the mode named mode on this kernel (Probe), for a run's flags; warn
// is told what best-effort does not enforce here.
func OpenNamed(mode, cwd string, addDirs []string, network bool, warn func(string)) (*Sandbox, error) {
	m, err := ParseMode(mode)
	if err != nil {
		return nil, &usageError{"--sandbox: " + err.Error()}
	}
	s, err := Open(m, cwd, addDirs, network, Probe())
	if err == nil && len(s.notEnforced) > 0 {
		warn("--sandbox best-effort: this kernel does not enforce " + strings.Join(s.notEnforced, "; "))
	}
	return s, err
}

// resolveRoot is dir (relative to cwd) made absolute with its symlinks resolved, as Landlock
// sees it; it must be an existing folder.
func resolveRoot(cwd, dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	resolved, err := filepath.EvalSymlinks(dir)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(resolved); err == nil && !fi.IsDir() {
			err = errors.New("not a directory")
		}
	}
	if err != nil {
		return "", &usageError{fmt.Sprintf("--add-dir %s: %v", dir, unwrapPath(err))}
	}
	return resolved, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// usageError is a bad setting of the sandbox: status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) ExitCode() int { return 2 }

// Tighten changes the mode to mode, which must be at least as strict as the present one and
// enforceable on this kernel (a *CheckError otherwise). It makes the run's temporary
// directory when mode is the first that writes.
func (s *Sandbox) Tighten(mode Mode) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !mode.Stricter(s.spec.Mode) {
		return &usageError{fmt.Sprintf("the sandbox can only be made stricter (off < best-effort < workspace-write < read-only): it is %s, %s is looser", s.spec.Mode, mode)}
	}
	if err := s.kernel.Require(mode, s.spec.Network); err != nil {
		return err
	}
	if mode.writesWorkspace() && s.tempDir == "" {
		dir, err := os.MkdirTemp("", "base-context-sandbox-")
		if err != nil {
			return fmt.Errorf("cannot make the sandbox's temporary directory: %v", err)
		}
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return fmt.Errorf("cannot make the sandbox's temporary directory: %v", err)
		}
		s.tempDir = dir
	}
	spec := Spec{Mode: mode, Network: s.spec.Network}
	if mode.writesWorkspace() {
		spec.Writable = append(append([]string(nil), s.roots...), s.tempDir)
	}
	s.spec = spec
	s.notEnforced = nil
	if mode == BestEffort {
		s.notEnforced = s.kernel.Missing(mode, spec.Network)
	}
	return nil
}

// Close removes the run's temporary directory and what the commands left in it.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tempDir == "" {
		return nil
	}
	err := os.RemoveAll(s.tempDir)
	s.tempDir = ""
	return err
}

// Spec is the rule set in force.
func (s *Sandbox) Spec() Spec {
	if s == nil {
		return Spec{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spec
}

// Mode is the mode in force.
func (s *Sandbox) Mode() Mode { return s.Spec().Mode }

// TempDir is the run's private temporary directory (TMPDIR of its commands); "" when the
// mode writes nowhere.
func (s *Sandbox) TempDir() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tempDir
}

// NotEnforced lists what best-effort could not enforce on this kernel.
func (s *Sandbox) NotEnforced() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notEnforced...)
}

// Header is the session header's account of the sandbox; nil when it is off.
func (s *Sandbox) Header() *codec.Sandbox {
	spec := s.Spec()
	if spec.Mode == Off {
		return nil
	}
	return &codec.Sandbox{Mode: spec.Mode.String(), WritableRoots: spec.Writable, Network: spec.Network,
		NotEnforced: s.NotEnforced()}
}

// DeniedError is a write the sandbox refuses. Its text is what the model sees.
type DeniedError struct {
	Mode Mode
	Path string // resolved: the file the write would have reached
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("%s: %s", deniedPrefix(e.Mode), e.Path)
}

func deniedPrefix(m Mode) string { return codec.SandboxDeniedMarker + m.String() + ")" }

// CheckWrite is the file tools' check of a write to path (absolute): the file it reaches,
// symlinks followed, must lie in a writable root. It holds whatever the kernel has, since
// it runs in the agent, which Landlock does not restrict.
func (s *Sandbox) CheckWrite(path string) error {
	spec := s.Spec()
	if spec.Mode == Off {
		return nil
	}
	target := resolve(filepath.Clean(path), 0)
	for _, root := range spec.Writable {
		if within(target, root) {
			return nil
		}
	}
	return &DeniedError{Mode: spec.Mode, Path: target}
}

// maxLinks is how many symlinks resolve follows, as the kernel's limit (ELOOP).
const maxLinks = 40

// resolve is the path the kernel would reach writing p: its symlinks followed, the final
// one included, whether or not its target exists (a write creates it).
func resolve(p string, links int) string {
	for ; links < maxLinks; links++ {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		t, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	dir, base := filepath.Dir(p), filepath.Base(p)
	if dir == p {
		return p
	}
	if rd, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(rd, base)
	}
	return filepath.Join(resolve(dir, links), base) // a folder the write would create
}

func within(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// deniedWords are how a command's output says that the kernel refused it (EACCES, EPERM).
var deniedWords = []string{"Permission denied", "Operation not permitted"}

// Note is what the bash tool adds to the result of a command that failed (failed) with a
// refusal in its output (output) while the sandbox is on: the model learns that the
// sandbox refused it, which no retry from inside can change. "" otherwise.
func (s *Sandbox) Note(output string, failed bool) string {
	spec := s.Spec()
	if spec.Mode == Off || !failed {
		return ""
	}
	for _, w := range deniedWords {
		if strings.Contains(output, w) && !strings.Contains(output, codec.SandboxDeniedMarker) {
			what := "writes are allowed nowhere"
			if len(spec.Writable) > 0 {
				what = "writes are allowed only in " + strings.Join(spec.Writable, ", ")
			}
			net := ", and TCP connections are refused"
			if spec.Network {
				net = ""
			}
			return fmt.Sprintf("%s: the command was refused by the sandbox: %s%s; it cannot be lifted from inside the run",
				deniedPrefix(spec.Mode), what, net)
		}
	}
	return ""
}

// Wrap makes cmd run under the sandbox: through `base-context sandbox exec`, which restricts
// itself with Landlock and then executes cmd's program, with TMPDIR the run's temporary
// directory. Nothing when the sandbox is off.
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	if s == nil {
		return nil
	}
	s.mu.Lock() // the spec and the directory of one mode, should Tighten run meanwhile
	spec, dir := s.spec, s.tempDir
	s.mu.Unlock()
	if spec.Mode == Off {
		return nil
	}
	self, err := executable()
	if err != nil {
		return fmt.Errorf("cannot run the command in the sandbox: %v", err)
	}
	args := []string{"base-context", "sandbox", "exec", "--mode", spec.Mode.String()}
	for _, d := range spec.Writable {
		args = append(args, "--add-dir", d)
	}
	if spec.Network {
		args = append(args, "--network")
	}
	cmd.Args = append(append(args, "--"), cmd.Args...)
	cmd.Path, cmd.Err = self, nil
	if spec.Mode.writesWorkspace() {
		env := cmd.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append(env, "TMPDIR="+dir)
	}
	return nil
}

// executable is this program, which Wrap runs again as the sandbox's launcher.
var executable = sync.OnceValues(os.Executable)
