package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/userfile"
)

// Entry is one entry line of a session file.
type Entry struct {
	Type      string
	ID        string
	ParentID  string // "" for the first entry
	Timestamp string
	Line      int    // line number in the file, from 1 (0 in a Memory)
	Raw       []byte // the whole line, without its LF (see Resume)

	Message codec.Message // for message entries (see Resume)

	// Provider and ModelID for model_change entries, ThinkingLevel for
	// thinking_level_change entries.
	Provider, ModelID, ThinkingLevel string

	// Where the line is in the file: from off, size bytes (without its LF and CR); the
	// message of a message entry is line[msgStart:msgEnd], escaped when it holds a
	// backslash.
	off              int64
	size             int
	msgStart, msgEnd int
	escaped          bool
}

// Loaded is a session file as read.
type Loaded struct {
	Header  codec.Header
	Entries []Entry // every entry, in file order

	// The chain: from the last entry back along parentId to the first, in order.
	Chain    []*Entry
	Messages []codec.Message // the messages on the chain (see Resume)

	// The settings in force at the end of the chain ("" when never set).
	Provider, ModelID, ThinkingLevel string

	// Warnings reports what was skipped: an incomplete or invalid last line, a broken
	// parent link, a duplicate id.
	Warnings []string

	goodSize  int64 // bytes up to the end of the last good line
	missingLF bool  // the last good line has no LF
}

// LastID is the id of the file's last entry, "" when there is none.
func (l *Loaded) LastID() string {
	if n := len(l.Entries); n > 0 {
		return l.Entries[n-1].ID
	}
	return ""
}

// Read reads a session file whole: every entry with its line and message. An incomplete or
// invalid last line is skipped and reported in Warnings; an invalid line elsewhere is an
// error naming its line number.
func Read(path string) (*Loaded, error) {
	f, err := userfile.Open(path) // a device or a FIFO would be read without end
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	src := &memLines{data: data}
	l, bad, err := scan(path, src, true)
	if err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, bad.err(path)
	}
	l.link()
	l.collectMessages()
	return l, nil
}

// lines is where a session file's lines come from: its contents in memory (Read), or the
// open file, a buffer at a time (Resume).
type lines interface {
	// next returns the next line without its LF, its offset and whether an LF ended it;
	// io.EOF after the last. The line is valid until the next call.
	next() (line []byte, off int64, terminated bool, err error)
	// at returns the n bytes at off again, valid until the next call; once called, next is
	// not.
	at(off int64, n int) ([]byte, error)
}

type memLines struct {
	data []byte
	off  int
}

func (m *memLines) next() ([]byte, int64, bool, error) {
	if m.off >= len(m.data) {
		return nil, 0, false, io.EOF
	}
	start := m.off
	end := bytes.IndexByte(m.data[start:], '\n')
	if end < 0 {
		m.off = len(m.data)
		return m.data[start:], int64(start), false, nil
	}
	m.off = start + end + 1
	return m.data[start : start+end], int64(start), true, nil
}

func (m *memLines) at(off int64, n int) ([]byte, error) { return m.data[off : off+int64(n)], nil }

// fileLines reads the lines of a file through a bounded buffer; a line longer than the
// buffer is assembled in long, which grows to the longest line, and serves at once the lines
// have been read.
type fileLines struct {
	r    *bufio.Reader
	f    io.ReaderAt
	off  int64
	long []byte
}

func newFileLines(f interface {
	io.Reader
	io.ReaderAt
}) *fileLines {
	return &fileLines{r: bufio.NewReaderSize(f, 256<<10), f: f}
}

func (s *fileLines) next() ([]byte, int64, bool, error) {
	start := s.off
	line, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = s.r.ReadSlice('\n')
			s.long = append(s.long, line...)
		}
		line = s.long
	}
	s.off += int64(len(line))
	switch {
	case err == io.EOF && len(line) > 0:
		return line, start, false, nil
	case err != nil:
		return nil, 0, false, err
	}
	return line[:len(line)-1], start, true, nil
}

func (s *fileLines) at(off int64, n int) ([]byte, error) {
	if cap(s.long) < n {
		s.long = make([]byte, n)
	}
	return s.read(s.long[:n], off)
}

// read reads len(dst) bytes at off into dst.
func (s *fileLines) read(dst []byte, off int64) ([]byte, error) {
	if _, err := s.f.ReadAt(dst, off); err != nil {
		return nil, err
	}
	return dst, nil
}

// lineError is a line that is not a valid entry.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) err(path string) error {
	return fmt.Errorf("session: %s:%d: %s", path, e.line, e.msg)
}

// scan reads the lines of a session file from src and checks each: the header first, then
// the entries. An invalid line is fatal (returned as bad, with the entries before it) when
// another line follows it; the last one is skipped, reported in Warnings and left out of
// goodSize. With decode, entries keep their lines (Raw, in src's memory) and messages;
// without, they keep only their fields, copied, and where their lines are: messages are
// decoded later (Resume), but for the last entry's, which decides whether the last line is
// valid.
func scan(path string, src lines, decode bool) (l *Loaded, bad *lineError, err error) {
	l = &Loaded{}
	no := 0
	haveHeader := false
	for {
		line, off, terminated, err := src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("session: %w", err)
		}
		end := off + int64(len(line))
		if terminated {
			end++
		}
		no++
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if terminated && bad == nil {
				l.goodSize = end
			}
			continue
		}
		if bad != nil {
			return l, bad, nil
		}
		if !haveHeader {
			if err := parseHeader(&l.Header, line); err != nil {
				if !terminated {
					return nil, nil, fmt.Errorf("session: %s: incomplete header", path)
				}
				return nil, nil, fmt.Errorf("session: %s:%d: %v", path, no, err)
			}
			haveHeader = true
		} else {
			e, err := parseEntry(line, decode)
			if err != nil {
				bad = &lineError{no, err.Error()}
				if !terminated {
					bad.msg = "incomplete line: " + bad.msg
				}
				continue
			}
			e.Line, e.off, e.size = no, off, len(line)
			if !decode {
				e.detach()
			}
			l.Entries = append(l.Entries, e)
		}
		l.goodSize = end
		l.missingLF = !terminated
	}
	if !haveHeader {
		return nil, nil, fmt.Errorf("session: %s: no session header", path)
	}
	if n := len(l.Entries); !decode && bad == nil && n > 0 && l.Entries[n-1].Type == TypeMessage {
		e := &l.Entries[n-1]
		line, err := src.at(e.off, e.size)
		if err != nil {
			return nil, nil, fmt.Errorf("session: %w", err)
		}
		if _, err := entryMessage(line[e.msgStart:e.msgEnd]); err != nil {
			bad = &lineError{e.Line, err.Error()}
			if l.missingLF {
				bad.msg = "incomplete line: " + bad.msg
			}
			l.goodSize, l.missingLF = e.off, false
			l.Entries = l.Entries[:n-1]
		}
	}
	if bad != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("line %d skipped: %s", bad.line, bad.msg))
	}
	return l, nil, nil
}

func parseHeader(h *codec.Header, line []byte) error {
	parsed, err := codec.ParseHeader(line)
	if err != nil {
		return err
	}
	if parsed.Version != Version {
		return fmt.Errorf("unsupported session version %d", parsed.Version)
	}
	*h = *parsed
	return nil
}

// parseEntry checks an entry line and reads its members; its strings, and its message's,
// are in line's memory. The message of a message entry is decoded when decode is set; else
// it is only found (msgStart, msgEnd, escaped), for entryMessage.
func parseEntry(line []byte, decode bool) (Entry, error) {
	e := Entry{Raw: line}
	if err := codec.CheckObject(line); err != nil {
		return e, err
	}
	f := codec.Fields{What: "session entry"}
	var msg codec.Member
	var unescaped []byte
	str := func(name string, dst *string, m codec.Member) {
		*dst = f.Str(name, gjson.Parse(codec.UnsafeString(m.Raw(line))))
	}
	codec.EachMember(line, func(key []byte, m codec.Member) bool {
		if bytes.IndexByte(key, '\\') >= 0 {
			unescaped = codec.AppendUnescaped(unescaped[:0], key)
			key = unescaped
		}
		switch string(key) {
		case "type":
			str("type", &e.Type, m)
		case "id":
			str("id", &e.ID, m)
		case "parentId":
			str("parentId", &e.ParentID, m)
		case "timestamp":
			str("timestamp", &e.Timestamp, m)
		case "message":
			msg = m
		case "provider":
			str("provider", &e.Provider, m)
		case "modelId":
			str("modelId", &e.ModelID, m)
		case "thinkingLevel":
			str("thinkingLevel", &e.ThinkingLevel, m)
		}
		return f.Err == nil
	})
	if f.Err != nil {
		return e, f.Err
	}
	switch e.Type {
	case "":
		return e, errors.New("entry without a type")
	case codec.TypeSession:
		return e, errors.New("second session header")
	}
	if e.ID == "" {
		return e, fmt.Errorf("%s entry without an id", e.Type)
	}
	if e.Type == TypeMessage {
		if !msg.Exists() || line[msg.ValStart] != '{' {
			return e, errors.New("message entry without a message")
		}
		e.msgStart, e.msgEnd = msg.ValStart, msg.ValEnd
		if decode {
			m, err := entryMessage(line[msg.ValStart:msg.ValEnd])
			if err != nil {
				return e, err
			}
			e.Message = m
		} else {
			e.escaped = bytes.IndexByte(line[msg.ValStart:msg.ValEnd], '\\') >= 0
		}
	}
	return e, nil
}

// entryMessage decodes the message of a message entry whose line parseEntry accepted; its
// strings share raw's memory.
func entryMessage(raw []byte) (codec.Message, error) {
	return codec.DecodeMessage(raw)
}

// detach copies the entry's strings out of its line, which it forgets.
func (e *Entry) detach() {
	switch e.Type {
	case TypeMessage:
		e.Type = TypeMessage
	case TypeCompaction:
		e.Type = TypeCompaction
	default:
		e.Type = strings.Clone(e.Type)
	}
	e.ID, e.ParentID, e.Timestamp = strings.Clone(e.ID), strings.Clone(e.ParentID), strings.Clone(e.Timestamp)
	e.Provider, e.ModelID, e.ThinkingLevel = strings.Clone(e.Provider), strings.Clone(e.ModelID), strings.Clone(e.ThinkingLevel)
	e.Raw = nil
}

// link walks the chain from the last entry back to the first and collects the settings on
// it.
func (l *Loaded) link() {
	if len(l.Entries) == 0 {
		return
	}
	byID := make(map[string]int, len(l.Entries))
	for i := range l.Entries {
		e := &l.Entries[i]
		if _, dup := byID[e.ID]; dup {
			l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: duplicate id %s", e.Line, e.ID))
		}
		byID[e.ID] = i
	}
	seen := make(map[int]bool)
	var rev []*Entry
	for i := len(l.Entries) - 1; ; {
		e := &l.Entries[i]
		seen[i] = true
		rev = append(rev, e)
		if e.ParentID == "" {
			break
		}
		j, ok := byID[e.ParentID]
		if !ok {
			l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: parent %s not found", e.Line, e.ParentID))
			break
		}
		if seen[j] {
			l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: parent %s makes a cycle", e.Line, e.ParentID))
			break
		}
		i = j
	}
	l.Chain = make([]*Entry, len(rev))
	for i, e := range rev {
		l.Chain[len(rev)-1-i] = e
	}
	for _, e := range l.Chain {
		switch e.Type {
		case TypeModelChange:
			l.Provider, l.ModelID = e.Provider, e.ModelID
		case TypeThinkingLevelChange:
			l.ThinkingLevel = e.ThinkingLevel
		}
	}
}

// collectMessages lists the messages on the chain that are decoded.
func (l *Loaded) collectMessages() {
	for _, e := range l.Chain {
		if e.Type == TypeMessage && e.Message != nil {
			l.Messages = append(l.Messages, e.Message)
		}
	}
}
