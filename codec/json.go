// Package codec holds the event and message types of the JSON-lines stream, their encoder,
// and the line reader and writer that frame the stream.
//
// Encoding is append-based: every type appends its JSON to a byte slice through a plan
// compiled once from the description (describe.go, plan.go), keys in the order of the
// struct fields (the order docs/stream.md lists them), absent optionals omitted. Strings are escaped the
// way JavaScript's JSON.stringify escapes them (the original implementation's format), so a
// line we write and a line the original wrote differ only where their values differ.
package codec

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// needsEscape marks the ASCII bytes that JSON.stringify escapes.
var needsEscape = func() (t [utf8.RuneSelf]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

// AppendString appends s as a JSON string literal. Invalid UTF-8 becomes U+FFFD so the
// output is always valid UTF-8.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !needsEscape[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendInt appends an integer.
func AppendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// AppendFloat appends a number the way JavaScript prints it: the shortest representation
// that round-trips, in plain notation from 1e-6 up to 1e21 and exponent notation outside.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...) // what JSON.stringify writes for them
	}
	if f == 0 {
		return append(dst, '0')
	}
	abs := math.Abs(f)
	if abs < 1e21 && abs >= 1e-6 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// Go writes e+07 / e-07; JavaScript writes e+7 / e-7.
	for i := start; i < len(dst); i++ {
		if dst[i] == 'e' && i+3 < len(dst) && dst[i+2] == '0' {
			dst = append(dst[:i+2], dst[i+3:]...)
			break
		}
	}
	return dst
}

// AppendBool appends true or false.
func AppendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// AppendRaw appends already encoded JSON, or def when raw is empty.
func AppendRaw(dst, raw []byte, def string) []byte {
	if len(raw) == 0 {
		return append(dst, def...)
	}
	return append(dst, raw...)
}

// Encoder is anything that appends its JSON form.
type Encoder interface {
	AppendJSON(dst []byte) []byte
}
