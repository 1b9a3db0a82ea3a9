package session

// An arena gives the messages that a resumed context keeps memory of their own, in chunks:
// a message's strings share the chunk it was read into. Building a context touches that
// much fresh memory, and its page faults were most of the time of a long resume where they
// are slow (a virtual machine's); a full chunk is laid on huge pages where the system allows
// it (hugeChunk), which takes 1/512th of the faults. A chunk stays as long as one of its
// messages: a compaction in the run frees the chunks of the messages it replaced.
type arena struct {
	free []byte // the rest of the current chunk
	left int    // bytes still to be asked for
}

const (
	arenaChunk = 16 << 20
	hugePage   = 2 << 20
)

// inArena says whether a message of n bytes goes in the arena's chunks; a larger one gets
// memory of its own.
func inArena(n int) bool { return n <= arenaChunk/8 }

// newArena makes an arena for total bytes, the sum of the sizes that inArena accepts.
func newArena(total int) *arena { return &arena{left: total} }

// alloc returns n bytes that nothing else uses. Of a chunk, what is left when the next
// message does not fit (at most an eighth of it) is not used; the last chunk is of the
// size still asked for.
func (a *arena) alloc(n int) []byte {
	if !inArena(n) {
		return make([]byte, n)
	}
	if len(a.free) < n {
		if a.left < arenaChunk {
			a.free = make([]byte, max(a.left, n))
		} else {
			a.free = hugeChunk(arenaChunk)
		}
	}
	a.left -= n
	b := a.free[:n:n]
	a.free = a.free[n:]
	return b
}
