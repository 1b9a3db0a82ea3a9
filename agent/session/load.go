package session

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/basecontext/base-context/codec"
)

// Loading a session to continue it (Resume) reads the file twice, keeping only what the
// context needs. The first pass (scan without decode) checks every line as Read does but
// keeps of each entry only its fields and where its line is; the chain, and the latest
// compaction on it, follow from those. The second pass (readContext) reads back, with
// ReadAt, the message of every message entry, in file order: each is decoded, so that an
// invalid one is the same error as for Read, but kept only when the context holds it (from
// the compaction's first kept entry on). Memory is the context's messages, the entries'
// fields and, per worker of the second pass, a buffer of its longest line.

// readContext fills in, after scan and link, what Context, ContextEntryIDs and Undelivered
// read: the messages of the context, the line of the latest compaction on the chain and
// those of the entries after the chain's last message.
func (l *Loaded) readContext(path string, src *fileLines) error {
	for i := len(l.Chain) - 1; i >= 0; i-- {
		if e := l.Chain[i]; e.Type == TypeCompaction {
			if err := e.readRaw(src); err != nil {
				return err
			}
			break
		}
	}
	for i := len(l.Chain) - 1; i >= 0 && l.Chain[i].Type != TypeMessage; i-- {
		if err := l.Chain[i].readRaw(src); err != nil {
			return err
		}
	}
	src.long = nil // each worker of decodeMessages has a buffer of its own
	_, from := l.start()
	keep := make(map[*Entry]bool, len(l.Chain)-from)
	for _, e := range l.Chain[from:] {
		keep[e] = e.Type == TypeMessage
	}
	return l.decodeMessages(path, src, keep)
}

// decodeMessages decodes the message of each message entry, keeping those in keep; the
// first that is invalid, in file order, is the error, naming its line. The messages are
// independent of one another, so they are decoded on all CPUs, each worker a contiguous
// run of them (of about equal bytes) with its own buffer and arena.
func (l *Loaded) decodeMessages(path string, src *fileLines, keep map[*Entry]bool) error {
	var msgs []*Entry
	total := 0
	for i := range l.Entries {
		if e := &l.Entries[i]; e.Type == TypeMessage {
			msgs = append(msgs, e)
			total += e.msgEnd - e.msgStart
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 8, total/(4<<20)+1) // a small session: one
	errs := make([]error, workers)
	var wg sync.WaitGroup
	from, done := 0, 0
	for w := range workers {
		to := from
		for to < len(msgs) && (w == workers-1 || done < total*(w+1)/workers) {
			done += msgs[to].msgEnd - msgs[to].msgStart
			to++
		}
		run := msgs[from:to]
		from = to
		wg.Go(func() { errs[w] = decodeRun(path, src.f, run, keep) })
	}
	wg.Wait()
	for _, err := range errs { // the runs are in file order
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeRun decodes the messages of run, in order, stopping at the first invalid one. A
// kept message without escapes is read into an arena, and its strings share it; any other
// is read into one buffer, and a kept one's strings are copied out of it, unescaped, into
// the arena (so that the escaped text is not kept beside them).
func decodeRun(path string, f io.ReaderAt, run []*Entry, keep map[*Entry]bool) error {
	total := 0
	for _, e := range run {
		if n := e.msgEnd - e.msgStart; keep[e] && inArena(n) {
			total += n // the most its strings take, escaped or not
		}
	}
	a := newArena(total)
	var buf []byte
	for _, e := range run {
		n, off := e.msgEnd-e.msgStart, e.off+int64(e.msgStart)
		own := keep[e] && !e.escaped
		var raw []byte
		if own {
			raw = a.alloc(n)
		} else {
			if cap(buf) < n {
				buf = make([]byte, n)
			}
			raw = buf[:n]
		}
		if _, err := f.ReadAt(raw, off); err != nil {
			return fmt.Errorf("session: %w", err)
		}
		var m codec.Message
		var err error
		if keep[e] && !own {
			m, err = codec.DecodeMessageInto(raw, a.alloc)
		} else {
			m, err = entryMessage(raw)
		}
		if err != nil {
			return (&lineError{e.Line, err.Error()}).err(path)
		}
		if keep[e] {
			e.Message = m
		}
	}
	return nil
}

// readRaw reads the entry's line back.
func (e *Entry) readRaw(src *fileLines) error {
	line, err := src.at(e.off, e.size)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	e.Raw = bytes.Clone(line)
	return nil
}
