package redact

import "hash/maphash"

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

// Start begins a block redacted with w's rules; args: its deltas are JSON source.
func (b *Block) Start(w *Walker, args bool) {
	b.w, b.args = w, args
	b.text.reset(kindNone)
	b.argSrc.reset()
	b.hash.SetSeed(w.cache.seed)
	b.hashing = false
}

// Released is what the block released so far: the text (decoded), or the arguments'
// source. It only grows, and is new for each block, so that callers may view it as a
// string.
func (b *Block) Released() []byte { return b.released }

// Push runs a delta through the block and returns what it releases.
func (b *Block) Push(delta []byte) []byte {
	before := len(b.released)
	if b.args {
		b.released = b.argSrc.push(b.w.r, b.released, delta, false)
	} else {
		b.n += len(delta)
		b.released = b.pushText(delta, false)
	}
	return b.released[before:]
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
	return out
}

// Finish ends the block and returns the tail it held.
func (b *Block) Finish() []byte {
	before := len(b.released)
	if b.args {
		b.released = b.argSrc.push(b.w.r, b.released, nil, true)
	} else {
		b.released = b.pushText(nil, true)
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
