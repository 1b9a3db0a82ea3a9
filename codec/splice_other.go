//go:build !linux

package codec

import "os"

// SpliceFrom is for Linux only: elsewhere the caller writes the bytes it has.
func (lw *LineWriter) SpliceFrom(f *os.File, off int64, n int) (ok bool, err error) {
	return false, nil
}
