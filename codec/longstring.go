package codec

import "unicode/utf8"

// AppendLongString is AppendString for long texts (a block's whole text, a tool's output),
// with the same result: the runs of s that need no escape, as most of a text is, are found
// by scanPlain (32 bytes at a time on amd64) and copied whole, where AppendString looks at
// every byte.
func AppendLongString(dst []byte, s []byte) []byte {
	plain, high := scanPlain(s, 0) // s[:plain] needs no escape, but for invalid UTF-8
	if high && !utf8.Valid(s[:plain]) {
		plain = 0
	}
	dst = append(append(dst, '"'), s[:plain]...)
	if plain == len(s) {
		return append(dst, '"')
	}
	// The rest as AppendString writes it, but for the quote it opens with.
	at := len(dst)
	dst = AppendString(dst, UnsafeString(s[plain:]))
	return append(dst[:at], dst[at+1:]...)
}
