package codec

// scanPlain returns the index of the first '"', '\\' or control character (< 0x20) of b at
// or after i, len(b) when there is none, and whether a byte >= 0x80 lies between i and it.
// In scan_amd64.s: 32 bytes an iteration with SSE2, which every amd64 processor has.
//
//go:noescape
func scanPlain(b []byte, i int) (end int, high bool)
