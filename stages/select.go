package stages

import (
	"strings"

	"github.com/basecontext/base-context/codec"
)

// SelectOptions says which events the select stage keeps.
type SelectOptions struct {
	// Types keeps the events of these types (drops them, with Not). A name ending in "*"
	// matches every type it is a prefix of ("tool_execution_*"). None: every type.
	Types []string
	Not   bool
	// Roles, when given, keeps only the message events (message_start, message_update,
	// message_end) whose message has one of these roles; other events are not affected.
	Roles []string
	// Tools, when given, keeps only the tool execution events whose toolName is one of
	// these; other events are not affected.
	Tools []string
	// NoHeader drops session headers, which are kept otherwise whatever Types says, but
	// for Not with a type that matches "session".
	NoHeader bool
}

// Select keeps or drops events by type, role and tool name. It reads the top-level "type"
// (found while the line was validated) and, only for message and tool events when asked
// to, one more member; every line it keeps is written as it came. Lines that are not JSON
// objects, or have no string "type", are not understood and so always kept.
type Select struct {
	opts     SelectOptions
	exact    map[string]bool
	prefixes []string
	roles    map[string]bool
	tools    map[string]bool

	// The last type matched and the answer: a stream comes in runs of one type (updates),
	// and comparing with the last is cheaper than a lookup.
	lastType  string
	lastMatch bool

	next NextDeltas // what was done with the last line pushed
}

// NewSelect returns the select stage.
func NewSelect(opts SelectOptions) *Select {
	s := &Select{opts: opts, exact: map[string]bool{}}
	for _, t := range opts.Types {
		if p, ok := strings.CutSuffix(t, "*"); ok {
			s.prefixes = append(s.prefixes, p)
		} else {
			s.exact[t] = true
		}
	}
	if len(opts.Roles) > 0 {
		s.roles = setOf(opts.Roles)
	}
	if len(opts.Tools) > 0 {
		s.tools = setOf(opts.Tools)
	}
	return s
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func (s *Select) Push(f *Frame, emit Emit) error {
	if s.keep(f) {
		s.next = PassDeltas
		return emit(f)
	}
	s.next = DropDeltas
	return nil
}

func (s *Select) Flush(Emit) error { return nil }

// NextDeltas: the next deltas of a block have the type, role and tool of the line before
// (only the text of their delta differs), so they are kept or dropped as it was.
func (s *Select) NextDeltas() NextDeltas { return s.next }

func (s *Select) SkippedDeltas(DeltaRun) error { return nil }

func (s *Select) keep(f *Frame) bool {
	typ := f.Type()
	switch {
	case typ == "":
		return true
	case typ == codec.TypeSession:
		// Kept whatever the types, unless dropped by name: --not session (or a prefix of it).
		return !s.opts.NoHeader && !(s.opts.Not && len(s.opts.Types) > 0 && s.matches(typ))
	}
	if len(s.opts.Types) > 0 && s.matches(typ) == s.opts.Not {
		return false
	}
	switch typ {
	case codec.TypeMessageStart, codec.TypeMessageUpdate, codec.TypeMessageEnd:
		return s.roles == nil || s.roles[s.role(f)]
	case codec.TypeToolExecutionStart, codec.TypeToolExecutionUpdate, codec.TypeToolExecutionEnd:
		return s.tools == nil || s.tools[s.toolName(f)]
	}
	return true
}

func (s *Select) matches(typ string) bool {
	if typ != s.lastType {
		s.lastType, s.lastMatch = typ, s.lookup(typ)
	}
	return s.lastMatch
}

func (s *Select) lookup(typ string) bool {
	if s.exact[typ] {
		return true
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return false
}

var messageKey = []string{"message"}

// role is the role of a message event's message. An update without one (the delta form)
// is an assistant's: only assistant messages stream.
func (s *Select) role(f *Frame) string {
	switch e := f.Event.(type) {
	case *codec.MessageStart:
		return roleOf(e.Message)
	case *codec.MessageEnd:
		return roleOf(e.Message)
	case *codec.MessageUpdate:
		return "assistant"
	}
	var m [1]codec.Member
	f.members(messageKey, m[:])
	if !m[0].Exists() {
		if f.Type() == codec.TypeMessageUpdate {
			return "assistant"
		}
		return ""
	}
	msg := m[0].Raw(f.Line())
	return codec.Find(msg, "role").View(msg) // for a lookup only
}

func roleOf(m codec.Message) string {
	if m == nil {
		return ""
	}
	return m.Role()
}

var toolNameKey = []string{"toolName"}

func (s *Select) toolName(f *Frame) string {
	switch e := f.Event.(type) {
	case *codec.ToolExecutionStart:
		return e.ToolName
	case *codec.ToolExecutionUpdate:
		return e.ToolName
	case *codec.ToolExecutionEnd:
		return e.ToolName
	}
	var m [1]codec.Member
	f.members(toolNameKey, m[:])
	return m[0].View(f.Line()) // for a lookup only
}
