package codec

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Valid JSON that parsers read differently (RFC 8259 leaves both to them): a key that
// appears twice in one object (jq and JavaScript keep the last value, many decoders the
// first), and a \u escape of a lone UTF-16 surrogate (\ud800), which names no character (it
// is replaced, refused or kept, depending on the decoder). Either makes one line mean
// different things to different consumers.

// Ambiguity is one such place in a value.
type Ambiguity struct {
	Path string // where: keys and [indexes] from the top, "message.content[0].text"; "" for the top
	What string // `duplicate key "op"`, `lone surrogate \ud800`
}

// String is `<path>: <what>`, or what alone at the top.
func (a Ambiguity) String() string {
	if a.Path == "" {
		return a.What
	}
	return a.Path + ": " + a.What
}

// EachAmbiguity calls fn for each ambiguity of b (valid JSON) in order, until fn returns
// false. Its cost is linear: string bodies are crossed with bytes.IndexByte, and the keys of
// a large object are compared through a map.
func EachAmbiguity(b []byte, fn func(Ambiguity) bool) {
	var w AmbiguityWalker
	w.Each(b, fn)
}

// AmbiguityWalker is EachAmbiguity with storage reused from one value to the next, for
// checking every line of a stream without allocating. The zero value is ready to use.
type AmbiguityWalker struct {
	b       []byte
	fn      func(Ambiguity) bool
	stopped bool
	path    Path     // keys alias b
	keys    []string // keys of the objects open, innermost last; aliasing b
}

// Each is EachAmbiguity.
func (w *AmbiguityWalker) Each(b []byte, fn func(Ambiguity) bool) {
	w.b, w.fn, w.stopped = b, fn, false
	w.path, w.keys = w.path[:0], w.keys[:0]
	if i := SkipSpace(b, 0); i < len(b) {
		w.value(i)
	}
	w.b, w.fn = nil, nil
	clear(w.keys[:cap(w.keys)]) // drop the references into b
	clear(w.path[:cap(w.path)])
}

// objectKeysCompared is how many keys of one object are compared pairwise before a map
// takes over.
const objectKeysCompared = 16

func (w *AmbiguityWalker) report(what string) {
	if !w.stopped {
		w.stopped = !w.fn(Ambiguity{Path: w.path.String(), What: what})
	}
}

// value walks the value at i and returns the index after it.
func (w *AmbiguityWalker) value(i int) int {
	b := w.b
	switch b[i] {
	case '"':
		end := SkipString(b, i+1)
		w.surrogates(i+1, end-1, "")
		return end
	case '{':
		mark := len(w.keys)
		var seen map[string]struct{}
		i = SkipSpace(b, i+1)
		for !w.stopped && i < len(b) && b[i] == '"' {
			keyEnd := SkipString(b, i+1)
			body := b[i+1 : keyEnd-1]
			w.surrogates(i+1, keyEnd-1, " in a key")
			key := UnsafeString(body) // only compared while b is walked
			if bytes.IndexByte(body, '\\') >= 0 {
				key = Member{ValStart: i, ValEnd: keyEnd}.Str(b) // the key as decoders see it
			}
			if w.seen(key, mark, &seen) {
				w.report("duplicate key " + strconv.Quote(key))
			}
			i = SkipSpace(b, SkipSpace(b, keyEnd)+1) // past the colon
			w.path = append(w.path, KeyStep(UnsafeString(body)))
			i = SkipSpace(b, w.value(i))
			w.path = w.path[:len(w.path)-1]
			if i < len(b) && b[i] == ',' {
				i = SkipSpace(b, i+1)
			}
		}
		w.keys = w.keys[:mark]
		if w.stopped {
			return len(b)
		}
		return i + 1
	case '[':
		i = SkipSpace(b, i+1)
		for n := 0; !w.stopped && i < len(b) && b[i] != ']'; n++ {
			w.path = append(w.path, IndexStep(n))
			i = SkipSpace(b, w.value(i))
			w.path = w.path[:len(w.path)-1]
			if i < len(b) && b[i] == ',' {
				i = SkipSpace(b, i+1)
			}
		}
		if w.stopped {
			return len(b)
		}
		return i + 1
	}
	return SkipValue(b, i)
}

// seen reports whether key is already a key of the object whose keys start at w.keys[mark],
// and records it. Past objectKeysCompared keys the object's keys go into *seen.
func (w *AmbiguityWalker) seen(key string, mark int, seen *map[string]struct{}) bool {
	if *seen != nil {
		if _, dup := (*seen)[key]; dup {
			return true
		}
		(*seen)[key] = struct{}{}
		return false
	}
	for _, k := range w.keys[mark:] {
		if k == key {
			return true
		}
	}
	w.keys = append(w.keys, key)
	if len(w.keys)-mark > objectKeysCompared {
		*seen = make(map[string]struct{}, 2*objectKeysCompared)
		for _, k := range w.keys[mark:] {
			(*seen)[k] = struct{}{}
		}
	}
	return false
}

// surrogates reports the lone surrogate escapes of the string body b[i:end].
func (w *AmbiguityWalker) surrogates(i, end int, where string) {
	b := w.b
	for !w.stopped {
		k := bytes.IndexByte(b[i:end], '\\')
		if k < 0 {
			return
		}
		i += k
		if b[i+1] != 'u' {
			i += 2
			continue
		}
		r := escapedRune(b[i+2 : i+6])
		esc := b[i : i+6]
		i += 6
		if !utf16.IsSurrogate(r) {
			continue
		}
		if i+6 <= end && b[i] == '\\' && b[i+1] == 'u' &&
			utf16.DecodeRune(r, escapedRune(b[i+2:i+6])) != utf8.RuneError {
			i += 6 // a pair: one character
			continue
		}
		w.report("lone surrogate " + string(esc) + where)
	}
}

// escapedRune decodes the four hex digits of a \u escape (valid JSON).
func escapedRune(hex []byte) rune {
	r, _ := hex4(hex)
	return r
}
