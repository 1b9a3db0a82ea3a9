package codec

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// This is the one decoder of JSON string escapes: lookups (Member.Str), the partial-JSON
// repair and the redaction engine's walkers and streams all decode with it, so that they
// agree on what a string says. It decodes as encoding/json does: a surrogate pair is one
// character, a lone surrogate is U+FFFD.

// Unescape decodes the escape at src[0] == '\\'. n is its length in src; ok is false when
// src ends before the escape does (more may come), unless final says it cannot.
func Unescape(src []byte, final bool) (r rune, n int, ok bool) {
	if len(src) < 2 {
		return 0, 0, false
	}
	switch src[1] {
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
	default:
		// '"', '\\', '/', and anything else (not JSON) as it is.
		r, size := utf8.DecodeRune(src[1:])
		return r, 1 + size, true
	}
	h, ok := hex4(src[2:])
	if !ok {
		if len(src) < 6 {
			return 0, 0, false
		}
		return utf8.RuneError, 6, true
	}
	if !utf16.IsSurrogate(h) {
		return h, 6, true
	}
	// A high surrogate takes the low one of the escape after it; alone it is U+FFFD.
	if h < 0xDC00 {
		if len(src) < 12 {
			rest := src[6:]
			if !final && bytes.HasPrefix([]byte(`\u`), rest[:min(len(rest), 2)]) {
				return 0, 0, false
			}
		} else if src[6] == '\\' && src[7] == 'u' {
			if l, ok := hex4(src[8:]); ok && l >= 0xDC00 && l < 0xE000 {
				return utf16.DecodeRune(h, l), 12, true
			}
		}
	}
	return utf8.RuneError, 6, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// AppendUnescaped appends the decoded body of a complete JSON string (without its quotes).
func AppendUnescaped(dst, body []byte) []byte {
	for len(body) > 0 {
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			return append(dst, body...)
		}
		dst = append(dst, body[:k]...)
		r, n, _ := Unescape(body[k:], true)
		if n == 0 {
			return append(dst, body[k:]...)
		}
		dst = utf8.AppendRune(dst, r)
		body = body[k+n:]
	}
	return dst
}
