package cli

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The binary's code and read-only data are mapped from the page cache. Kernels that keep
// files in large folios map a whole 2 MB folio at once where the process may use huge pages:
// a filter touching a few hundred KB of code showed 30-43 MB resident instead of 27 MB,
// depending only on how the binary's file happened to be cached (just built, read back from
// disk). So the process refuses huge pages from its start, and unmaps again the parts of its
// own file that the runtime's start had mapped 2 MB at a time before that: they stay cached,
// and come back page by page as they are used. (Unmapping all of the file instead made every
// start ~15 ms slower, with the pages faulted back.) The filters have no use for huge pages.
func init() {
	if unix.Prctl(unix.PR_SET_THP_DISABLE, 1, 0, 0, 0) != nil || !filePMDMapped(readProcFile) {
		return
	}
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	smaps, err := readProcFile("/proc/self/smaps")
	if err != nil {
		return
	}
	for _, r := range pmdMappings(smaps, exe) {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, r[0], r[1]-r[0], unix.MADV_DONTNEED)
	}
}

// readProcFile reads the file name with bare system calls. os.ReadFile's first file starts
// the runtime's poller (epoll_create1, eventfd2, epoll_ctl) and its cleanup machinery: most
// of the time of this package's initialisation, and a filter between pipes needs neither.
func readProcFile(name string) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	b := make([]byte, 0, 4096)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// allowHugePages gives the process, and the commands its tools start (they inherit the
// setting), the system's default again: the agent's children are not ours to constrain.
func allowHugePages() { _ = unix.Prctl(unix.PR_SET_THP_DISABLE, 0, 0, 0, 0) }

// filePMDMapped reports whether some file is mapped in 2 MB pages in this process, reading
// the files of /proc with readFile. Most often no process has any: /proc/meminfo, a sum the
// kernel keeps, says so at a fraction of the cost of this process's sum in
// /proc/self/smaps_rollup (which walks the process's page tables: 0.4 ms of a filter's
// start), itself cheaper to read than each mapping's.
func filePMDMapped(readFile func(name string) ([]byte, error)) bool {
	if b, err := readFile("/proc/meminfo"); err == nil && bytes.Contains(b, []byte("\nFilePmdMapped:")) && smapsValue(b, "FilePmdMapped:") == 0 {
		return false
	}
	b, err := readFile("/proc/self/smaps_rollup")
	return err == nil && smapsValue(b, "FilePmdMapped:") > 0
}

// pmdMappings lists the address ranges [start, end) where smaps (a /proc/PID/smaps) shows
// the file exe mapped read-only with some of it in 2 MB pages.
func pmdMappings(smaps []byte, exe string) [][2]uintptr {
	var ranges [][2]uintptr
	for len(smaps) > 0 {
		// A mapping: its line "start-end perms offset dev inode path", then "Key: value" lines.
		header, rest, _ := bytes.Cut(smaps, []byte("\n"))
		next := len(rest)
		for i := 0; i < len(rest); {
			line, _, _ := bytes.Cut(rest[i:], []byte("\n"))
			if bytes.IndexByte(line, ':') < 0 || bytes.IndexByte(line, ' ') < bytes.IndexByte(line, ':') {
				next = i // not "Key:": the next mapping's line
				break
			}
			i += len(line) + 1
		}
		fields := bytes.Fields(header)
		if len(fields) >= 6 && mappedPath(header) == exe && fields[1][1] != 'w' && smapsValue(rest[:next], "FilePmdMapped:") > 0 {
			start, end, _ := bytes.Cut(fields[0], []byte("-"))
			s, err1 := strconv.ParseUint(string(start), 16, 64)
			e, err2 := strconv.ParseUint(string(end), 16, 64)
			if err1 == nil && err2 == nil && e > s {
				ranges = append(ranges, [2]uintptr{uintptr(s), uintptr(e)})
			}
		}
		smaps = rest[next:]
	}
	return ranges
}

// mappedPath is the path at the end of a mapping's line, after its five other fields (a
// path may hold spaces, and ends in " (deleted)" once its file is gone, as /proc/self/exe
// then does too).
func mappedPath(header []byte) string {
	rest := header
	for range 5 {
		rest = bytes.TrimLeft(rest, " ")
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			rest = rest[i:]
		} else {
			return ""
		}
	}
	return string(bytes.TrimLeft(rest, " "))
}

// smapsValue is the number after key ("FilePmdMapped:") in a block of smaps lines, 0 when
// the key is not there.
func smapsValue(b []byte, key string) int {
	i := 0
	if !bytes.HasPrefix(b, []byte(key)) {
		if i = bytes.Index(b, []byte("\n"+key)); i < 0 {
			return 0
		}
		i++
	}
	fields := bytes.Fields(b[i+len(key):])
	if len(fields) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(string(fields[0]))
	return n
}
