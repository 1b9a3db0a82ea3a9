package cli

import "golang.org/x/sys/unix"

// The binary's code and read-only data are mapped from the page cache. Kernels that keep
// files in large folios map a whole 2 MB folio at once where the process may use huge pages,
// so a filter touching a few hundred KB of code showed up to 43 MB resident instead of 28 MB,
// depending only on how the binary's file happened to be cached. Refusing huge pages from
// here on keeps the code mapped page by page from then on (what the runtime's start mapped
// before stays mapped: unmapping it was tried, and the pages faulted back cost more than it
// saved). The filters have no use for huge pages.
func init() { _ = unix.Prctl(unix.PR_SET_THP_DISABLE, 1, 0, 0, 0) }

// allowHugePages gives the process, and the commands its tools start (they inherit the
// setting), the system's default again: the agent's children are not ours to constrain.
func allowHugePages() { _ = unix.Prctl(unix.PR_SET_THP_DISABLE, 0, 0, 0, 0) }
