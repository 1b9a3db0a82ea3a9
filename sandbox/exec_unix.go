//go:build unix

package sandbox

import "syscall"

func execve(path string, argv, env []string) error {
	err := syscall.Exec(path, argv, env)
	return &execError{path + ": " + err.Error(), 126}
}
