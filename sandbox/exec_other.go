//go:build !unix

package sandbox

// execve: a process cannot replace itself here; Probe finds no Landlock, so every mode but
// off is refused before.
func execve(path string, _, _ []string) error {
	return &execError{path + ": cannot execute a program in place on this system", 126}
}
