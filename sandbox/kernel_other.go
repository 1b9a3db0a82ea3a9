//go:build !linux

package sandbox

import "runtime"

// detectABI: Landlock is Linux's; elsewhere there is none.
func detectABI() int { return 0 }

func release() string { return runtime.GOOS + " (Landlock is Linux only)" }
