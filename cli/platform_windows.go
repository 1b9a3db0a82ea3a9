//go:build windows

package cli

// unsupported says why a command (or --detach) cannot run on Windows: running sessions are
// controlled through Unix sockets, and --detach needs setsid.
func unsupported(command string) error {
	switch command {
	case "list", "stop", "send", "attach", "--detach":
		return Fail(ExitUsage, command+" is not supported on Windows: running sessions need Unix sockets (runs in the foreground work)")
	}
	return nil
}

// catchFileSizeLimit: Windows has no file size limit signal.
func catchFileSizeLimit() {}
