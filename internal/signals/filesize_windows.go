//go:build windows

package signals

// CatchFileSizeLimit: Windows has no file size limit signal.
func CatchFileSizeLimit() {}
