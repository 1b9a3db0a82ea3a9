//go:build windows

package session

import "os"

// flock does nothing on Windows, which has no flock: a session file is not protected
// against a second writer there (docs/running.md, Install and platforms).
func flock(*os.File) error { return nil }
