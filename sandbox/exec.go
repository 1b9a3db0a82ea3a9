package sandbox

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Exec restricts this process to spec and replaces it with argv (`sandbox exec`, and the
// launcher Wrap runs); argv may begin with the "--" that ended the flags. A mode the kernel
// cannot enforce whole is refused (a *CheckError); best-effort takes what there is. In
// workspace-write and best-effort, the working directory is a writable root beside
// spec.Writable; read-only writes nowhere.
func Exec(spec Spec, argv []string) error {
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return &usageError{"sandbox exec: no command given (sandbox exec [flags] -- CMD [ARG…])"}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return &usageError{"sandbox exec: " + err.Error()}
	}
	k := Probe()
	if err := k.Require(spec.Mode, spec.Network); err != nil {
		return err
	}
	writable := []string{}
	if spec.Mode.writesWorkspace() {
		for _, d := range append([]string{cwd}, spec.Writable...) {
			root, err := resolveRoot(cwd, d)
			if err != nil {
				return err
			}
			writable = append(writable, root)
		}
	}
	spec.Writable = writable
	if spec.Mode != Off {
		if err := restrict(spec, k.ABI); err != nil {
			return fmt.Errorf("cannot restrict the command with Landlock: %v", err)
		}
		if err := dropCapabilities(spec.Network); err != nil {
			return fmt.Errorf("cannot drop the capabilities that step around Landlock: %v", err)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return &execError{fmt.Sprintf("%s: %v", argv[0], unwrapPath(err)), 127}
	}
	return execve(path, argv, os.Environ())
}

// execError is a command Exec could not start: status 127 (not found) or 126, as a shell's.
type execError struct {
	msg  string
	code int
}

func (e *execError) Error() string { return e.msg }
func (e *execError) ExitCode() int { return e.code }

// ExecNamed is Exec of the mode named mode ("": workspace-write), for `sandbox exec`.
func ExecNamed(mode string, addDirs []string, network bool, argv []string) error {
	m, err := ParseMode(cmp.Or(mode, WorkspaceWrite.String()))
	if err != nil {
		return &usageError{"--mode: " + err.Error()}
	}
	return Exec(Spec{Mode: m, Writable: addDirs, Network: network}, argv)
}

// Check writes what this kernel enforces (Kernel.Report) to w, for `sandbox check`; where
// workspace-write cannot hold, it returns a quiet error of status 1 (the report said why).
func Check(w io.Writer) error {
	text, ok := Probe().Report()
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	if !ok {
		return &execError{"", 1}
	}
	return nil
}
