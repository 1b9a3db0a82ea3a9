package redact

import (
	"bytes"
	"hash/maphash"
)

// Block redacts one content block that streams in deltas: a text (or thinking) whose
// deltas are text, or a tool call's arguments whose deltas are JSON source. It holds back
// only the tail that could still become part of a match; the pieces it releases add up to
// the redaction of the block's whole text.
type Block struct {
	w        *Walker
	args     bool
	text     textStream
	argSrc   argsStream
	released []byte

	// quiet: the text block holds nothing back, has redacted nothing (what it released is
	// what it received) and its scanner is between matches, as it is over most of a
	// stream. A piece is then scanned in place at the end of what was released, which is
	// its context, and when no rule can start in it, it is released as it came, without
	// going through the stream's buffer: that buffer is stale while the block is quiet,
	// and is made again from the text released when a piece needs the full scan. (The
	// scanner's state does not change over such a piece: a block's text is no member's
	// value, so the state's started, which only the judging of a value reads, is not kept.)
	quiet bool
	// plain: the text released holds no quote and no backslash, so that a JSON string
	// holds it as it is (Plain).
	plain bool
	// quietState is the state quietStates left the text released in when it was quietLen
	// long: the next piece of a quiet block is crossed from there (see quietPiece).
	quietState uint8
	quietLen   int

	// The length of the text received, its hash, and the rules that redacted it: a
	// finished text's redaction is remembered, in the walker's cache, for the events
	// that repeat it. Until a redaction, the text released is the text received (and
	// what is held): the hash is taken of it at the end, or from the piece that changes
	// it on (hashing), not of every piece.
	hash    maphash.Hash
	hashing bool
	n       int
	rules   []int
}

// Start begins a block redacted with w's rules; args: its deltas are JSON source. A block
// may be started again for another block: it keeps its buffers, so that what Released
// returned before is overwritten.
func (b *Block) Start(w *Walker, args bool) {
	b.w, b.args = w, args
	b.released, b.n, b.rules = b.released[:0], 0, b.rules[:0]
	b.text.reset(kindNone)
	b.argSrc.reset()
	b.quiet, b.plain = !args, !args
	b.quietLen = -1
	b.hash.SetSeed(w.cache.seed)
	b.hashing = false
}

// Released is what the block released so far: the text (decoded), or the arguments'
// source. It only grows until the block is started again.
func (b *Block) Released() []byte { return b.released }

// Plain reports that the block is a text whose released text holds no quote and no
// backslash: the body of a JSON string that starts with a quote, holds that text and then
// a quote is that text, and ends there.
func (b *Block) Plain() bool { return b.plain }

// notePlain keeps plain for text released from before on.
func (b *Block) notePlain(before int) {
	if b.plain {
		more := b.released[before:]
		b.plain = bytes.IndexByte(more, '"') < 0 && bytes.IndexByte(more, '\\') < 0
	}
}

// Push runs a delta through the block and returns what it releases, and whether that is
// the delta itself, byte for byte (out is then the block's copy of it).
func (b *Block) Push(delta []byte) (out []byte, asCame bool) {
	before := len(b.released)
	if b.args {
		b.released = b.argSrc.push(b.w.r, b.released, delta, false)
		out = b.released[before:]
		return out, bytes.Equal(out, delta)
	}
	b.n += len(delta)
	if b.quiet {
		if b.quietPiece(b.w.r.textQuiet, delta) {
			b.released = append(b.released, delta...)
			b.notePlain(before)
			return b.released[before:], true
		}
		b.released = append(b.released, delta...)
		if b.w.r.quietFrom(b.released, before, &b.w.r.candidates) {
			b.notePlain(before)
			return b.released[before:], true
		}
		b.released = b.released[:before]
		b.wake()
	}
	b.released = b.pushText(delta, false)
	b.notePlain(before)
	out = b.released[before:]
	return out, bytes.Equal(out, delta)
}

// PushString is Push for a delta given as the JSON string raw[start:end] (quotes included,
// valid): it returns what the block releases, decoded, or, when that is the delta as it
// came (raw's own bytes encode it), nil and true. A quiet block finds an escape as it
// crosses the string's body, so that a body without one is not decoded.
func (b *Block) PushString(raw []byte, start, end int) (out []byte, asCame bool) {
	if b.quiet {
		if b.PushQuiet(raw, start, end) {
			return nil, true
		}
		before := len(b.released)
		b.released = append(b.released, raw[start+1:end-1]...)
		if b.w.r.quietFrom(b.released, before, &b.w.r.rawCandidates) {
			b.n += len(b.released) - before
			return nil, true
		}
		b.released = b.released[:before]
	}
	out, asCame = b.Push(b.w.Decoded(raw, start, end))
	if asCame {
		return nil, true
	}
	return out, false
}

// Quiet reports whether PushQuiet may release the next delta as it came: the block is quiet
// and the rules are the built-in ones alone.
func (b *Block) Quiet() bool { return b.quiet && b.w.r.builtinOnly }

// PushQuiet is PushString for a delta that a quiet block releases as it came, found so
// by quietStates alone: it pushes the delta and reports true, or else does nothing and
// reports false (the delta may still be released as it came by PushString). A caller
// that must know what the block will release before it pushes asks this first.
func (b *Block) PushQuiet(raw []byte, start, end int) bool {
	// A valid string's body holds no bare quote, and one found quiet no escape: the body
	// is its text, and plain stays as it was.
	body := raw[start+1 : end-1]
	if !b.quiet || !b.quietPiece(b.w.r.rawQuiet, body) {
		return false
	}
	b.released = append(b.released, body...)
	b.n += len(body)
	return true
}

// quietPiece reports that no rule can start in piece, the next text of a quiet block, by
// the automaton q (its rules' textQuiet, or rawQuiet for a JSON string's body as encoded):
// crossed from the state the automaton left the text released in when it crossed the piece
// before, or else from the text's last bytes. With literals or patterns, it says nothing.
func (b *Block) quietPiece(q *quietStates, piece []byte) bool {
	s := b.quietState
	if b.quietLen != len(b.released) {
		s = b.quietStart(q)
	}
	if s = q.run(s, piece); s == quietStop {
		return false
	}
	b.quietState, b.quietLen = s, len(b.released)+len(piece)
	return true
}

// quietStart is the state of q after the text released, or quietStop with literals or
// patterns.
func (b *Block) quietStart(q *quietStates) uint8 {
	if !b.w.r.builtinOnly {
		return quietStop
	}
	return q.start(b.released)
}

// wake ends quiet: the stream's buffer is made again, the context the scanner may read
// taken from the text released, which is the text received.
func (b *Block) wake() {
	b.quiet = false
	b.text.resume(b.released[max(0, len(b.released)-lookBehind):])
}

// pushText runs text through a text block, noting the rules that redacted it.
func (b *Block) pushText(text []byte, atEOF bool) []byte {
	r := b.w.r
	w, base, cut, spans := b.text.push(r, text, atEOF)
	switch {
	case b.hashing:
		b.hash.Write(text)
	case len(spans) > 0:
		// The text received so far: the text released, unchanged until now, then the text
		// held and this piece.
		b.hash.Write(b.released)
		b.hash.Write(w[base:])
		b.hashing = true
	}
	out := r.render(b.released, w, base, cut, spans)
	b.rules = rulesOf(b.rules, spans)
	b.text.consume(w, base, cut)
	b.quiet = !b.hashing && cut == len(w) && b.text.st.mode == modeNormal && !b.text.st.judgingWhole()
	return out
}

// Finish ends the block and returns the tail it held.
func (b *Block) Finish() []byte {
	before := len(b.released)
	if b.args {
		b.released = b.argSrc.push(b.w.r, b.released, nil, true)
	} else {
		if b.quiet {
			b.wake()
		}
		b.released = b.pushText(nil, true)
		b.notePlain(before)
		if b.n >= minCached {
			// The events that repeat the whole text (its *_end, the final messages) find
			// its redaction here instead of scanning it again.
			var sum uint64
			if b.hashing {
				sum = b.hash.Sum64()
			} else {
				sum = maphash.Bytes(b.w.cache.seed, b.released)
			}
			b.w.cache.put(sum, b.n, kindNone, len(b.rules) > 0, b.released, b.rules)
		}
	}
	return b.released[before:]
}
