package session

import (
	"syscall"
	"unsafe"
)

// hugeChunk allocates n bytes (a multiple of hugePage) that start on a huge page, and asks
// for huge pages for them (transparent huge pages in "madvise" mode; with "always" they
// are the default, with "never" this does nothing). It allocates one huge page more, to
// align them: the unused head before them is never touched, so it costs address space, not
// memory (but the Go heap counts it).
func hugeChunk(n int) []byte {
	b := make([]byte, n+hugePage)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((p+hugePage-1)&^(hugePage-1) - p)
	b = b[off : off+n : off+n]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return b
}
