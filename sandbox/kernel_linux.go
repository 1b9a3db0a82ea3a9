package sandbox

import (
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// detectABI is the kernel's Landlock ABI version, 0 without Landlock.
func detectABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

func release() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "Linux"
	}
	return "Linux " + unix.ByteSliceToString(u.Release[:])
}
