//go:build linux

package codec

import (
	"syscall"
	"testing"
)

// scanPlain never reads past the end of b: slices that end where readable memory ends (a page
// followed by one that may not be read), of every length up to 100, every start, with and
// without a special byte as the last.
func TestScanPlainStopsAtEndOfMemory(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	copy(mem[:page], plainBytes(page))
	for n := 0; n <= 100; n++ {
		b := mem[page-n : page : page]
		checkScanPlain(t, b)
		if n > 0 {
			b[n-1] = '"'
			checkScanPlain(t, b)
			b[n-1] = 'x'
		}
	}
}
