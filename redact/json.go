package redact

import (
	"bytes"
	"hash/maphash"
	"unicode/utf8"

	"github.com/basecontext/base-context/codec"
)

// This file applies a Redactor to encoded JSON: every string (member names included) is
// decoded, so that escapes cannot hide a secret, redacted, and re-encoded only when it
// changed; every other byte stays as it was. Edits are collected with their offsets and
// spliced once.

// opaqueMember tells the members whose strings are opaque provider payloads, not text:
// redacting them would break the conversation (signatures) or an image, and they are never
// where secrets are written. obj is the object the member is in.
func opaqueMember(key, obj []byte) bool {
	switch string(key) {
	case "thinkingSignature", "textSignature", "thoughtSignature":
		return true
	case "data":
		return codec.Find(obj, "type").Str(obj) == "image"
	}
	return false
}

// MemberHook lets a caller take over the value at vs of a member named key (raw): when it
// handled the value it returns handled and the value's end.
type MemberHook func(key []byte, vs int) (ve int, handled bool)

// ElemHook is MemberHook for the elements of an array, n counting from 0.
type ElemHook func(n, vs int) (ve int, handled bool)

// Walker walks encoded JSON and collects the edits that redact it. Its Object and Array let
// a caller take over chosen values (the redaction stage does, for the blocks it streams);
// everything else is redacted as the engine redacts any JSON.
type Walker struct {
	r     *Redactor
	edits []codec.Edit
	enc   []byte // the texts of edits, one after another
	dec   []byte
	text  []byte
	spans []span
	cache *longStrings // nil: every string is scanned
}

// longStrings remembers the redaction of the last few long strings, so that a string that
// recurs in several events (an answer in its *_end, message_end, turn_end and agent_end; a
// tool's output in tool_execution_end, the tool result and turn_end) is scanned once.
type longStrings struct {
	seed    maphash.Seed
	entries [8]longString
	next    int
}

type longString struct {
	hash    uint64
	n, kind int
	changed bool
	out     []byte
	rules   []int // the redactions made, counted again on each use
}

// minCached is the length from which strings are remembered.
const minCached = 256

func newLongStrings() *longStrings { return &longStrings{seed: maphash.MakeSeed()} }

func (c *longStrings) find(hash uint64, n, kind int) *longString {
	for i := range c.entries {
		if e := &c.entries[i]; e.n == n && e.hash == hash && e.kind == kind && n > 0 {
			return e
		}
	}
	return nil
}

func (c *longStrings) put(hash uint64, n, kind int, changed bool, out []byte, rules []int) {
	e := &c.entries[c.next]
	c.next = (c.next + 1) % len(c.entries)
	*e = longString{hash: hash, n: n, kind: kind, changed: changed, rules: append(e.rules[:0], rules...)}
	if changed {
		e.out = append(e.out[:0], out...)
	}
}

// rulesOf lists the rules of the markers among spans.
func rulesOf(dst []int, spans []span) []int {
	for _, sp := range spans {
		if !sp.silent {
			dst = append(dst, sp.rule)
		}
	}
	return dst
}

// NewWalker returns a walker for r that remembers the redaction of the last few long
// strings it met, for the events that repeat them.
func NewWalker(r *Redactor) *Walker { return &Walker{r: r, cache: newLongStrings()} }

// Reset forgets the edits collected, for the next line.
func (j *Walker) Reset() { j.edits, j.enc = j.edits[:0], j.enc[:0] }

// Edits are the edits collected since Reset, in the order of their offsets.
func (j *Walker) Edits() []codec.Edit { return j.edits }

// AddEdit records an edit a hook made itself.
func (j *Walker) AddEdit(e codec.Edit) { j.edits = append(j.edits, e) }

// Splice appends b with the edits collected applied to dst.
func (j *Walker) Splice(dst, b []byte) []byte { return codec.Splice(dst, b, j.edits...) }

// Value walks the value at i of b (valid JSON) and returns its end.
func (j *Walker) Value(b []byte, i int) int { return j.value(b, i, kindNone) }

// PartialText redacts the string at [start, end) of b as the text of a stream so far: the
// tail that could still become part of a secret is left out, until a later version of the
// text shows what it is.
func (j *Walker) PartialText(b []byte, start, end int) {
	text := j.Decoded(b, start, end)
	var st scanState
	var cut int
	j.spans, cut = j.r.scan(text, 0, false, &st, j.spans[:0])
	if cut == len(text) && len(j.spans) == 0 {
		return
	}
	j.text = j.r.render(j.text[:0], text, 0, cut, j.spans)
	j.Replace(start, end, j.text)
}

// value walks the value at i of b (valid JSON); kind is the kind of its member's name.
func (j *Walker) value(b []byte, i int, kind int) int {
	switch b[i] {
	case '"':
		end := codec.SkipString(b, i+1)
		j.str(b, i, end, kind)
		return end
	case '{':
		return j.Object(b, i, nil)
	case '[':
		return j.Array(b, i, nil)
	}
	return codec.SkipValue(b, i)
}

// Decoded returns the decoded body of the string at [start, end), aliasing b when it has
// no escapes.
func (j *Walker) Decoded(b []byte, start, end int) []byte {
	body := b[start+1 : end-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body
	}
	j.dec = codec.AppendUnescaped(j.dec[:0], body)
	return j.dec
}

// str redacts the string at [start, end).
func (j *Walker) str(b []byte, start, end int, kind int) {
	s := j.Decoded(b, start, end)
	var hash uint64
	if j.cache != nil && len(s) >= minCached {
		hash = maphash.Bytes(j.cache.seed, s)
		if e := j.cache.find(hash, len(s), kind); e != nil {
			for _, rule := range e.rules {
				j.r.counts[rule].Add(1)
			}
			if e.changed {
				j.Replace(start, end, e.out)
			}
			return
		}
	}
	var changed bool
	j.text, j.spans, changed = j.r.redactText(j.text[:0], s, kind, j.spans)
	if hash != 0 {
		var rules [8]int
		j.cache.put(hash, len(s), kind, changed, j.text, rulesOf(rules[:0], j.spans))
	}
	if changed {
		j.Replace(start, end, j.text)
	}
}

// Replace edits [start, end) to the JSON string of text.
func (j *Walker) Replace(start, end int, text []byte) {
	// Appending may move j.enc: the texts of earlier edits stay where they were, unchanged.
	from := len(j.enc)
	j.enc = codec.AppendLongString(j.enc, text)
	j.edits = append(j.edits, codec.Edit{Start: start, End: end, Text: j.enc[from:len(j.enc):len(j.enc)]})
}

// Object walks the object at i and returns its end; hook, when not nil, may take over members' values.
func (j *Walker) Object(b []byte, i int, hook MemberHook) int {
	objStart := i
	i = codec.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for i < len(b) && b[i] == '"' {
		keyEnd := codec.SkipString(b, i+1)
		key := j.Decoded(b, i, keyEnd)
		vs := codec.SkipSpace(b, codec.SkipSpace(b, keyEnd)+1)
		kind := kindNone
		if b[vs] == '"' {
			kind = nameKind(key) // only a string value is judged by its name
		}
		opaque := opaqueMember(key, b[objStart:])
		if !opaque {
			j.str(b, i, keyEnd, kindNone)
		}
		key = b[i+1 : keyEnd-1] // raw: what hooks compare with
		var ve int
		handled := false
		switch {
		case opaque:
			ve, handled = codec.SkipValue(b, vs), true
		case hook != nil:
			ve, handled = hook(key, vs)
		}
		if !handled {
			ve = j.value(b, vs, kind)
		}
		var more bool
		if i, more = codec.NextItem(b, ve); !more {
			break
		}
	}
	return codec.SkipSpace(b, i) + 1
}

// Array walks the array at i and returns its end; hook, when not nil, may take over elements (key is nil).
func (j *Walker) Array(b []byte, i int, hook ElemHook) int {
	i = codec.SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for n, more := 0, true; more && i < len(b); n++ {
		ve, handled := 0, false
		if hook != nil {
			ve, handled = hook(n, i)
		}
		if !handled {
			ve = j.value(b, i, kindNone)
		}
		i, more = codec.NextItem(b, ve)
	}
	return codec.SkipSpace(b, i) + 1
}

// RedactValue returns the redaction of one encoded value (valid JSON) and whether it
// changed.
func (r *Redactor) RedactValue(raw []byte) ([]byte, bool) {
	j := Walker{r: r}
	j.value(raw, codec.SkipSpace(raw, 0), kindNone)
	if len(j.edits) == 0 {
		return raw, false
	}
	return codec.Splice(make([]byte, 0, len(raw)+64), raw, j.edits...), true
}

// RedactJSON returns the redaction of one encoded JSON value: raw itself when nothing
// changed or raw is not valid JSON.
func (r *Redactor) RedactJSON(raw []byte) []byte {
	if !codec.Valid(raw) {
		return raw
	}
	out, _ := r.RedactValue(raw)
	return out
}

// RedactMessage returns m with its secrets replaced: m itself when it has none.
func (r *Redactor) RedactMessage(m codec.Message) (codec.Message, error) {
	out, changed := r.RedactValue(m.AppendJSON(nil))
	if !changed {
		return m, nil
	}
	return codec.ParseMessage(out)
}

// argsStream redacts a tool call's argument fragments as they stream. The fragments are
// JSON source text; each string in it (member names included) is decoded and redacted as
// one stream, with the name of the member it is the value of, exactly as the walker above
// treats the finished arguments. Bytes outside the redactions are released as they came,
// escapes included.
type argsStream struct {
	text      textStream
	inString  bool
	isKey     bool
	backslash bool   // the last source byte read was an escaping backslash
	stack     []byte // open containers
	expectKey bool
	key       []byte // the decoded name of the current member
	keyKind   int
	raw       []byte // source of the current string not yet decoded (an escape cut off)
	src       []byte // source of the text's held bytes, and of the bytes being pushed
	escs      []escSpan
	dec       []byte
}

// escSpan is an escape in the decoded text: decoded offset and length, source length.
type escSpan struct{ dec, decLen, srcLen int }

func (a *argsStream) reset() {
	*a = argsStream{stack: a.stack[:0], key: a.key[:0], raw: a.raw[:0], src: a.src[:0],
		escs: a.escs[:0], dec: a.dec[:0], text: a.text}
	a.text.reset(kindNone)
}

// push appends to dst the source released for the fragment frag; atEOF ends the arguments.
func (a *argsStream) push(r *Redactor, dst, frag []byte, atEOF bool) []byte {
	for i := 0; i < len(frag); {
		if !a.inString {
			c := frag[i]
			i++
			dst = append(dst, c)
			switch c {
			case '"':
				a.inString = true
				a.isKey = a.expectKey && len(a.stack) > 0 && a.stack[len(a.stack)-1] == '{'
				kind := kindNone
				if a.isKey {
					a.key = a.key[:0]
				} else {
					kind = a.keyKind
				}
				a.text.reset(kind)
				a.raw, a.src, a.escs = a.raw[:0], a.src[:0], a.escs[:0]
			case '{', '[':
				a.stack = append(a.stack, c)
				a.expectKey = c == '{'
			case '}', ']':
				if len(a.stack) > 0 {
					a.stack = a.stack[:len(a.stack)-1]
				}
				a.expectKey = false
			case ':':
				a.expectKey = false
			case ',':
				a.expectKey = len(a.stack) > 0 && a.stack[len(a.stack)-1] == '{'
				if a.expectKey {
					a.keyKind = kindNone
				}
			}
			continue
		}
		// In a string: take the source up to its closing quote or the fragment's end.
		j := i
		for j < len(frag) {
			c := frag[j]
			if a.backslash {
				a.backslash = false
			} else if c == '\\' {
				a.backslash = true
			} else if c == '"' {
				break
			}
			j++
		}
		closed := j < len(frag)
		a.raw = append(a.raw, frag[i:j]...)
		i = j
		dst = a.pushString(r, dst, closed || atEOF)
		if closed {
			i++
			dst = append(dst, '"')
			a.inString = false
			if a.isKey {
				a.keyKind = nameKind(a.key)
			}
		}
	}
	if atEOF && a.inString {
		dst = a.pushString(r, dst, true)
		dst = append(dst, a.raw...) // an escape cut off for good
		a.raw = a.raw[:0]
	}
	return dst
}

// pushString decodes what it can of a.raw and pushes it through the string's stream,
// appending the source released.
func (a *argsStream) pushString(r *Redactor, dst []byte, end bool) []byte {
	held := len(a.text.held())
	a.dec = a.dec[:0]
	k := 0
	for k < len(a.raw) {
		e := bytes.IndexByte(a.raw[k:], '\\')
		if e < 0 {
			a.dec = append(a.dec, a.raw[k:]...)
			k = len(a.raw)
			break
		}
		a.dec = append(a.dec, a.raw[k:k+e]...)
		k += e
		rn, n, ok := codec.Unescape(a.raw[k:], end)
		if !ok {
			break
		}
		d := len(a.dec)
		a.dec = utf8.AppendRune(a.dec, rn)
		a.escs = append(a.escs, escSpan{dec: held + d, decLen: len(a.dec) - d, srcLen: n})
		k += n
	}
	a.src = append(a.src, a.raw[:k]...)
	a.raw = append(a.raw[:0], a.raw[k:]...)
	if a.isKey {
		a.key = append(a.key, a.dec...)
		if len(a.key) > 65 {
			a.key = a.key[:65]
		}
	}
	w, base, cut, spans := a.text.push(r, a.dec, end)
	at := base
	for _, sp := range spans {
		if sp.start >= cut {
			break
		}
		dst = append(dst, a.src[a.srcOff(at-base):a.srcOff(sp.start-base)]...)
		if !sp.silent {
			dst = append(dst, r.markers[sp.rule]...)
		}
		at = min(sp.end, cut)
	}
	dst = append(dst, a.src[a.srcOff(at-base):a.srcOff(cut-base)]...)
	// Keep the source and escapes of what is still held.
	done := cut - base
	a.src = append(a.src[:0], a.src[a.srcOff(done):]...)
	kept := a.escs[:0]
	for _, e := range a.escs {
		if e.dec >= done {
			e.dec -= done
			kept = append(kept, e)
		}
	}
	a.escs = kept
	a.text.consume(w, base, cut)
	return dst
}

// srcOff maps an offset in the decoded held text to its offset in a.src.
func (a *argsStream) srcOff(d int) int {
	off := d
	for _, e := range a.escs {
		if e.dec >= d {
			break
		}
		off += e.srcLen - e.decLen
	}
	return off
}
