//go:build !linux

package cli

func allowHugePages() {}
