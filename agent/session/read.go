package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"

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
	Raw       []byte // the whole line, without its LF

	Message codec.Message // for message entries

	// Provider and ModelID for model_change entries, ThinkingLevel for
	// thinking_level_change entries.
	Provider, ModelID, ThinkingLevel string
}

// Loaded is a session file as read.
type Loaded struct {
	Header  codec.Header
	Entries []Entry // every entry, in file order

	// The chain: from the last entry back along parentId to the first, in order.
	Chain    []*Entry
	Messages []codec.Message // the messages on the chain

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

// Read reads a session file. An incomplete or invalid last line is skipped and reported in
// Warnings; an invalid line elsewhere is an error naming its line number.
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
	return parse(path, data)
}

// lineError is a line that is not a valid entry.
type lineError struct {
	line int
	msg  string
}

func parse(path string, data []byte) (*Loaded, error) {
	l := &Loaded{}
	var bad *lineError // the last invalid line seen, fatal unless nothing valid follows it
	no := 0
	haveHeader := false
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		terminated := end >= 0
		if terminated {
			end += off
		} else {
			end = len(data)
		}
		line := data[off:end]
		off = end + 1
		no++
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if terminated && bad == nil {
				l.goodSize = int64(off)
			}
			continue
		}
		if bad != nil {
			return nil, fmt.Errorf("session: %s:%d: %s", path, bad.line, bad.msg)
		}
		if !haveHeader {
			if err := parseHeader(&l.Header, line); err != nil {
				if !terminated {
					return nil, fmt.Errorf("session: %s: incomplete header", path)
				}
				return nil, fmt.Errorf("session: %s:%d: %v", path, no, err)
			}
			haveHeader = true
		} else {
			e, err := parseEntry(line)
			if err != nil {
				bad = &lineError{no, err.Error()}
				if !terminated {
					bad.msg = "incomplete line: " + bad.msg
				}
				continue
			}
			e.Line = no
			l.Entries = append(l.Entries, e)
		}
		l.goodSize = int64(min(off, len(data)))
		l.missingLF = !terminated
	}
	if !haveHeader {
		return nil, fmt.Errorf("session: %s: no session header", path)
	}
	if bad != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("line %d skipped: %s", bad.line, bad.msg))
	}
	l.link()
	return l, nil
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

func parseEntry(line []byte) (Entry, error) {
	e := Entry{Raw: line}
	if err := codec.CheckObject(line); err != nil {
		return e, err
	}
	v := gjson.Parse(codec.UnsafeString(line)) // strings alias the file's data, kept as Raw
	var msg gjson.Result
	f := codec.Fields{What: "session entry"}
	str := f.Str
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "type":
			e.Type = str(k.Str, x)
		case "id":
			e.ID = str(k.Str, x)
		case "parentId":
			e.ParentID = str(k.Str, x)
		case "timestamp":
			e.Timestamp = str(k.Str, x)
		case "message":
			msg = x
		case "provider":
			e.Provider = str(k.Str, x)
		case "modelId":
			e.ModelID = str(k.Str, x)
		case "thinkingLevel":
			e.ThinkingLevel = str(k.Str, x)
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
		if !msg.IsObject() {
			return e, errors.New("message entry without a message")
		}
		m, err := codec.ParseMessage([]byte(msg.Raw))
		if err != nil {
			return e, err
		}
		e.Message = m
	}
	return e, nil
}

// link walks the chain from the last entry back to the first and collects what is on it.
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
		case TypeMessage:
			l.Messages = append(l.Messages, e.Message)
		case TypeModelChange:
			l.Provider, l.ModelID = e.Provider, e.ModelID
		case TypeThinkingLevelChange:
			l.ThinkingLevel = e.ThinkingLevel
		}
	}
}
