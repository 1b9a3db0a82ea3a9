package control

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// PeerCheck says how the server makes sure a caller is the run's own user.
const PeerCheck = "SO_PEERCRED"

// checkPeer refuses a caller whose uid is not ours, asking the kernel who is on the other
// end (SO_PEERCRED), on top of the socket's 0600 permissions.
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("cannot identify the caller: %v", cerr)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("permission denied: the session belongs to another user")
	}
	return nil
}
