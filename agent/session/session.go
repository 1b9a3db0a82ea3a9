// Package session keeps a session on disk: a JSON-lines file whose first line is the
// header (codec.Header, version 3) and whose other lines are entries. Each entry has a type,
// an 8-hex-digit id unique in the file, the id of the entry before it as parentId (null for
// the first), an ISO-8601 UTC timestamp with milliseconds, and fields of its type:
//
//	{"type":"message","id":…,"parentId":…,"timestamp":…,"message":{…}}
//	{"type":"model_change",…,"provider":…,"modelId":…}
//	{"type":"thinking_level_change",…,"thinkingLevel":…}
//
// Other entry types are passed through by readers. Each entry is written with one write
// call of a whole line, so a crash can leave at most one partial line at the end, which the
// reader skips and OpenAppend cuts off.
package session

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/basecontext/base-context/codec"
)

// Version is the session file format version.
const Version = 3

// Entry types.
const (
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
)

// Store receives the entries of a session: a File, or a Memory with --no-session.
type Store interface {
	AppendMessage(m codec.Message) (id string, err error)
	AppendModelChange(provider, modelID string) error
	AppendThinkingLevel(level string) error
	// AppendEntry appends an entry of another type (a compaction, a custom entry, the
	// session's name) with its fields (a JSON object's members, without braces, or nil).
	AppendEntry(typ string, fields []byte) (id string, err error)
	Close() error
}

// NewID returns a new session id, a UUIDv7 (time-ordered) string.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// NowISO formats t as the file's timestamps: ISO-8601 in UTC with milliseconds,
// e.g. 2026-12-02T14:02:42.971Z.
func NowISO(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// chain numbers and links the entries of one session.
type chain struct {
	lastID string
	ids    map[string]struct{}
	now    func() time.Time
}

func newChain() chain {
	return chain{ids: make(map[string]struct{}), now: time.Now}
}

// newEntryID returns 8 random hex digits not yet used in the session.
func (c *chain) newEntryID() string {
	var b [4]byte
	for {
		_, _ = rand.Read(b[:]) // never fails
		id := hex.EncodeToString(b[:])
		if _, used := c.ids[id]; !used {
			return id
		}
	}
}

// begin starts the line of a new entry, up to and including its timestamp; the caller
// appends its own members and finishes the line with finish.
func (c *chain) begin(dst []byte, typ string) (id string, line []byte) {
	id = c.newEntryID()
	line = append(dst, `{"type":`...)
	line = codec.AppendString(line, typ)
	line = append(line, `,"id":"`...)
	line = append(line, id...)
	line = append(line, `","parentId":`...)
	if c.lastID == "" {
		line = append(line, "null"...)
	} else {
		line = codec.AppendString(line, c.lastID)
	}
	line = append(line, `,"timestamp":`...)
	line = codec.AppendString(line, NowISO(c.now()))
	return id, line
}

func finish(line []byte) []byte { return append(line, '}', '\n') }

// commit makes id the parent of the next entry, once its line is stored.
func (c *chain) commit(id string) {
	c.ids[id] = struct{}{}
	c.lastID = id
}

func messageLine(c *chain, m codec.Message) (string, []byte) {
	id, line := c.begin(make([]byte, 0, 512), TypeMessage)
	line = append(line, `,"message":`...)
	start := len(line)
	line = m.AppendJSON(line)
	if bytes.IndexByte(line[start:], '\n') >= 0 {
		// Only a raw field (details, arguments) can hold a line break: compact the
		// message so the entry stays on one line.
		var buf bytes.Buffer
		if json.Compact(&buf, line[start:]) == nil {
			line = append(line[:start], buf.Bytes()...)
		}
	}
	return id, finish(line)
}

func modelChangeLine(c *chain, provider, modelID string) (string, []byte) {
	id, line := c.begin(nil, TypeModelChange)
	line = append(line, `,"provider":`...)
	line = codec.AppendString(line, provider)
	line = append(line, `,"modelId":`...)
	line = codec.AppendString(line, modelID)
	return id, finish(line)
}

func thinkingLevelLine(c *chain, level string) (string, []byte) {
	id, line := c.begin(nil, TypeThinkingLevelChange)
	line = append(line, `,"thinkingLevel":`...)
	line = codec.AppendString(line, level)
	return id, finish(line)
}

// customLine builds an entry of another type; fields is a JSON object whose members follow
// the common ones.
func customLine(c *chain, typ string, fields []byte) (string, []byte, error) {
	switch typ {
	case "", "session":
		return "", nil, fmt.Errorf("session: invalid entry type %q", typ)
	}
	f := gjson.ParseBytes(fields)
	if len(fields) > 0 && (!gjson.ValidBytes(fields) || !f.IsObject()) {
		return "", nil, errors.New("session: entry fields must be a JSON object")
	}
	id, line := c.begin(nil, typ)
	var err error
	f.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type", "id", "parentId", "timestamp":
			err = fmt.Errorf("session: entry field %q is reserved", k.Str)
			return false
		}
		line = append(line, ',')
		line = codec.AppendString(line, k.Str)
		line = append(line, ':')
		line = append(line, compact(v.Raw)...)
		return true
	})
	if err != nil {
		return "", nil, err
	}
	return id, finish(line), nil
}

func compact(raw string) string {
	if !strings.ContainsAny(raw, " \t\r\n") {
		return raw
	}
	return gjson.Get(raw, "@ugly").Raw
}

// File is a session file open for appending. It is safe for concurrent use.
type File struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	size   int64 // bytes of whole lines in the file
	chain  chain
	closed bool
}

var _ Store = (*File)(nil)

// prepare checks the header of a new session file and fills in its defaults, creates dir
// and returns the file's path.
func prepare(dir string, h *codec.Header) (string, error) {
	if h.ID == "" || strings.ContainsAny(h.ID, `/\`) || h.ID == "." || h.ID == ".." {
		return "", fmt.Errorf("session: invalid session id %q", h.ID)
	}
	if h.Version == 0 {
		h.Version = Version
	}
	if h.Timestamp == "" {
		h.Timestamp = NowISO(time.Now())
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	return filepath.Join(dir, h.ID+".jsonl"), nil
}

// Create creates the directory dir (0700) and the session file <dir>/<h.ID>.jsonl (0600) in
// it, and writes the header. A zero h.Version is Version; an empty h.Timestamp is now.
func Create(dir string, h codec.Header) (*File, error) {
	path, err := prepare(dir, &h)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if err := lock(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	line := append(h.AppendJSON(nil), '\n')
	if _, err := f.Write(line); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("session: writing header: %w", err)
	}
	return &File{f: f, path: path, size: int64(len(line)), chain: newChain()}, nil
}

// OpenAppend re-opens an existing session file for appending. The next entry's parent is
// the file's last entry. An incomplete or invalid last line (what a crash during a write
// leaves) is cut off first, so appends stay line-aligned; a valid last entry that only lacks
// its line feed gets one. The file is locked first: while another process writes it, the
// error is ErrLocked.
func OpenAppend(path string) (*File, error) {
	s, _, err := Resume(path)
	return s, err
}

// Resume is OpenAppend that also returns the session as read (its Warnings say what a crash
// left behind and was cut off). The file is read as a stream, every line checked as Read
// does, but the session is kept only as far as its context needs: Entries and Chain hold
// every entry's fields and Line, but Message only for the messages of Context (the chain
// from the latest compaction's first kept entry on), which are also Messages, and Raw only
// for that compaction and the entries after the chain's last message (Undelivered).
func Resume(path string) (*File, *Loaded, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	fail := func(err error) (*File, *Loaded, error) {
		f.Close()
		return nil, nil, err
	}
	if err := lock(f); err != nil {
		return fail(err)
	}
	st, err := f.Stat()
	if err != nil {
		return fail(fmt.Errorf("session: %w", err))
	}
	if !st.Mode().IsRegular() {
		return fail(fmt.Errorf("session: %s is not a regular file", path))
	}
	src := newFileLines(f)
	l, bad, err := scan(path, src, false)
	if err != nil {
		return fail(err)
	}
	if bad != nil {
		// An invalid message before the invalid line is the error Read reports.
		if err := l.decodeMessages(path, src, nil); err != nil {
			return fail(err)
		}
		return fail(bad.err(path))
	}
	l.link()
	if err := l.readContext(path, src); err != nil {
		return fail(err)
	}
	l.collectMessages()
	size := l.goodSize
	if size < src.off {
		if err := f.Truncate(size); err != nil {
			return fail(fmt.Errorf("session: repairing %s: %w", path, err))
		}
	}
	if l.missingLF {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return fail(fmt.Errorf("session: repairing %s: %w", path, err))
		}
		size++
	}
	s := &File{f: f, path: path, size: size, chain: newChain()}
	for _, e := range l.Entries {
		s.chain.ids[e.ID] = struct{}{}
	}
	s.chain.lastID = l.LastID()
	return s, l, nil
}

// CreateFork creates a new session file in dir, as Create, that starts with the chain of
// parent: the conversation so far, entry lines copied byte for byte (or as rewrite returns
// them, when it is not nil: redaction), ids and links kept. h.ParentSession should name the
// parent. The file appears whole or not at all: it is
// written under a temporary name and renamed.
func CreateFork(dir string, h codec.Header, parent *Loaded, rewrite func(line []byte) []byte) (*File, error) {
	path, err := prepare(dir, &h)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("session: %s: %w", path, os.ErrExist)
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	tmpPath := filepath.Join(dir, "."+h.ID+"."+hex.EncodeToString(suffix[:])+".tmp")
	f, err := os.OpenFile(tmpPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	fail := func(err error) (*File, error) {
		f.Close()
		os.Remove(tmpPath)
		return nil, err
	}
	if err := lock(f); err != nil {
		return fail(err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	w.Write(append(h.AppendJSON(nil), '\n'))
	for _, e := range parent.Chain {
		line := e.Raw
		if rewrite != nil {
			line = rewrite(line)
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return fail(fmt.Errorf("session: writing %s: %w", path, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("session: writing %s: %w", path, err))
	}
	st, err := f.Stat()
	if err != nil {
		return fail(fmt.Errorf("session: %w", err))
	}
	// The descriptor, and its lock, follow the file to its name; appends go on from it.
	if err := os.Rename(tmpPath, path); err != nil {
		return fail(fmt.Errorf("session: %w", err))
	}
	s := &File{f: f, path: path, size: st.Size(), chain: newChain()}
	for _, e := range parent.Chain {
		s.chain.ids[e.ID] = struct{}{}
	}
	if n := len(parent.Chain); n > 0 {
		s.chain.lastID = parent.Chain[n-1].ID
	}
	return s, nil
}

// Path is the file's path.
func (s *File) Path() string { return s.path }

// LastID is the id of the last entry, "" before the first.
func (s *File) LastID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chain.lastID
}

// write stores one line with a single write. If the write fails, the file is cut back to
// its last whole line so a later append does not continue a fragment.
func (s *File) write(id string, line []byte) error {
	if s.closed {
		return fmt.Errorf("session: %s: %w", s.path, os.ErrClosed)
	}
	n, err := s.f.Write(line)
	if err != nil {
		if n > 0 {
			_ = s.f.Truncate(s.size)
		}
		return err // it names the file: "write <path>: file too large"
	}
	s.size += int64(n)
	s.chain.commit(id)
	return nil
}

// AppendMessage appends a message entry and returns its id.
func (s *File) AppendMessage(m codec.Message) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, line := messageLine(&s.chain, m)
	return id, s.write(id, line)
}

// AppendModelChange appends a model_change entry.
func (s *File) AppendModelChange(provider, modelID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, line := modelChangeLine(&s.chain, provider, modelID)
	return s.write(id, line)
}

// AppendThinkingLevel appends a thinking_level_change entry.
func (s *File) AppendThinkingLevel(level string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, line := thinkingLevelLine(&s.chain, level)
	return s.write(id, line)
}

// AppendEntry appends an entry of a type this package does not model; fields is a JSON
// object (or empty) whose members follow the common ones.
func (s *File) AppendEntry(typ string, fields []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, line, err := customLine(&s.chain, typ, fields)
	if err != nil {
		return "", err
	}
	return id, s.write(id, line)
}

// Close closes the file.
func (s *File) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.f.Close()
}

// Memory is a Store that keeps its entries in memory, for runs without a session file.
// It is safe for concurrent use.
type Memory struct {
	mu      sync.Mutex
	chain   chain
	entries []Entry
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory session.
func NewMemory() *Memory { return &Memory{chain: newChain()} }

func (s *Memory) add(typ, id string, line []byte, m codec.Message) {
	e := Entry{Type: typ, ID: id, ParentID: s.chain.lastID, Raw: line[:len(line)-1], Message: m}
	e.Timestamp = gjson.GetBytes(e.Raw, "timestamp").Str
	s.entries = append(s.entries, e)
	s.chain.commit(id)
}

// init makes the zero Memory usable.
func (s *Memory) init() {
	if s.chain.ids == nil {
		s.chain = newChain()
	}
}

// AppendMessage records a message entry and returns its id.
func (s *Memory) AppendMessage(m codec.Message) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	id, line := messageLine(&s.chain, m)
	s.add(TypeMessage, id, line, m)
	return id, nil
}

// AppendModelChange records a model_change entry.
func (s *Memory) AppendModelChange(provider, modelID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	id, line := modelChangeLine(&s.chain, provider, modelID)
	s.add(TypeModelChange, id, line, nil)
	return nil
}

// AppendThinkingLevel records a thinking_level_change entry.
func (s *Memory) AppendThinkingLevel(level string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	id, line := thinkingLevelLine(&s.chain, level)
	s.add(TypeThinkingLevelChange, id, line, nil)
	return nil
}

// AppendEntry records an entry of another type, as File.AppendEntry.
func (s *Memory) AppendEntry(typ string, fields []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	id, line, err := customLine(&s.chain, typ, fields)
	if err != nil {
		return "", err
	}
	s.add(typ, id, line, nil)
	return id, nil
}

// Entries returns the entries so far, in order; Raw holds the line a File would have
// written (without its LF).
func (s *Memory) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.entries...)
}

// Messages returns the messages so far, in order.
func (s *Memory) Messages() []codec.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ms []codec.Message
	for _, e := range s.entries {
		if e.Message != nil {
			ms = append(ms, e.Message)
		}
	}
	return ms
}

// Close does nothing; the entries stay readable.
func (s *Memory) Close() error { return nil }
