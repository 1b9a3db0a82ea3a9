package session

import (
	"bytes"
	"fmt"
)

// Loading a session to continue it (Resume) reads the file twice, keeping only what the
// context needs. The first pass (scan without decode) checks every line as Read does but
// keeps of each entry only its fields and where its line is; the chain, and the latest
// compaction on it, follow from those. The second pass (readContext) reads back, with
// ReadAt, the message of every message entry, in file order: each is decoded, so that an
// invalid one is the same error as for Read, but kept only when the context holds it (from
// the compaction's first kept entry on). Memory is the context's messages, the entries'
// fields and a buffer of the longest line.

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
	_, from := l.start()
	keep := make(map[*Entry]bool, len(l.Chain)-from)
	for _, e := range l.Chain[from:] {
		keep[e] = e.Type == TypeMessage
	}
	return l.decodeMessages(path, src, keep)
}

// decodeMessages decodes the message of each message entry in file order, keeping those
// in keep; the first that is invalid is the error, naming its line. A kept message without
// escapes is read into an arena, and its strings share it; any other is read into the one
// buffer, and a kept one's strings are copied out of it, unescaped (so that the escaped
// text is not kept beside them).
func (l *Loaded) decodeMessages(path string, src *fileLines, keep map[*Entry]bool) error {
	total := 0
	for e, k := range keep {
		if n := e.msgEnd - e.msgStart; k && !e.escaped && inArena(n) {
			total += n
		}
	}
	a := newArena(total)
	for i := range l.Entries {
		e := &l.Entries[i]
		if e.Type != TypeMessage {
			continue
		}
		n, off := e.msgEnd-e.msgStart, e.off+int64(e.msgStart)
		var raw []byte
		var err error
		own := keep[e] && !e.escaped
		if own {
			raw, err = src.read(a.alloc(n), off)
		} else {
			raw, err = src.at(off, n)
		}
		if err != nil {
			return fmt.Errorf("session: %w", err)
		}
		m, err := entryMessage(raw, keep[e] && !own)
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
