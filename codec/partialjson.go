package codec

import (
	"unicode/utf8"
	"unsafe"
)

// PartialObject parses s, a JSON object that may be cut off anywhere (tool-call arguments
// while they stream), and returns the compact encoding of what it holds so far: an unfinished
// string keeps its text so far, while a key without a value, an unfinished literal or a
// number that is not yet a number is left out. Anything that is not an object yields {}.
// On complete input the result is the canonical compact form of s, which is how final
// arguments are encoded, so a snapshot taken at the last fragment equals the final block.
func PartialObject(s string) []byte { return AppendPartialObject(nil, s) }

// AppendPartialObject appends PartialObject(s) to dst.
func AppendPartialObject(dst []byte, s string) []byte {
	p := partialParser{s: s}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return append(dst, "{}"...)
	}
	out, _ := p.value(dst)
	return out
}

type partialParser struct {
	s string
	i int
}

func (p *partialParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value appends the value at p.i. ok is false when nothing usable was there, in which case
// dst comes back unchanged.
func (p *partialParser) value(dst []byte) (out []byte, ok bool) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return dst, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.container(dst, '}', true), true
	case c == '[':
		return p.container(dst, ']', false), true
	case c == '"':
		str, _ := p.str()
		return AppendString(dst, str), true
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(dst)
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(p.s)-p.i >= len(lit) && p.s[p.i:p.i+len(lit)] == lit {
				p.i += len(lit)
				return append(dst, lit...), true
			}
		}
		p.i = len(p.s) // an unfinished literal or garbage: nothing more can be read
		return dst, false
	}
}

// container reads an object or array; it always closes what it opened.
func (p *partialParser) container(dst []byte, closer byte, isObject bool) []byte {
	p.i++ // the opener
	if isObject {
		dst = append(dst, '{')
	} else {
		dst = append(dst, '[')
	}
	n := 0
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			break
		}
		if p.s[p.i] == closer {
			p.i++
			break
		}
		if n > 0 {
			if p.s[p.i] != ',' {
				p.i = len(p.s)
				break
			}
			p.i++
			p.skipSpace()
		}
		mark := len(dst)
		if n > 0 {
			dst = append(dst, ',')
		}
		if isObject {
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				dst = dst[:mark]
				p.i = len(p.s)
				break
			}
			key, complete := p.str()
			p.skipSpace()
			if !complete || p.i >= len(p.s) || p.s[p.i] != ':' {
				dst = dst[:mark]
				p.i = len(p.s)
				break
			}
			p.i++
			dst = AppendString(dst, key)
			dst = append(dst, ':')
		}
		var ok bool
		dst, ok = p.value(dst)
		if !ok {
			dst = dst[:mark]
			break
		}
		n++
	}
	return append(dst, closer)
}

// str reads a string at p.i (the opening quote); complete is false when it was cut off.
func (p *partialParser) str() (s string, complete bool) {
	p.i++
	start := p.i
	// Fast path: no escapes.
	for j := p.i; j < len(p.s); j++ {
		c := p.s[j]
		if c == '"' {
			p.i = j + 1
			return p.s[start:j], true
		}
		if c == '\\' {
			break
		}
	}
	var b []byte
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), true
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		r, n, ok := Unescape(unsafe.Slice(unsafe.StringData(p.s[p.i:]), len(p.s)-p.i), false)
		if !ok {
			p.i = len(p.s)
			return string(b), false
		}
		b = utf8.AppendRune(b, r)
		p.i += n
	}
	return string(b), false
}

// number keeps the lexeme as written when it is a complete number.
func (p *partialParser) number(dst []byte) ([]byte, bool) {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.i++
			continue
		}
		break
	}
	lex := p.s[start:p.i]
	if !validNumber(lex) {
		p.i = len(p.s)
		return dst, false
	}
	return append(dst, lex...), true
}

func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(s)
}
