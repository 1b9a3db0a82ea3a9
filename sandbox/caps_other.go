//go:build !linux

package sandbox

// dropCapabilities: capabilities are Linux's.
func dropCapabilities(bool) error { return nil }
