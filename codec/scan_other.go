//go:build !amd64

package codec

// scanPlain returns the index of the first '"', '\\' or control character (< 0x20) of b at
// or after i, len(b) when there is none, and whether a byte >= 0x80 lies between i and it.
func scanPlain(b []byte, i int) (end int, high bool) {
	return scanPlainWords(b, i)
}
