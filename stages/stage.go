// Package stages holds the streaming transforms of the event stream. Each stage works on
// frames: a frame carries either a typed event (in process, from the agent) or an encoded
// line (read from a file or pipe), and is encoded only when somebody needs its bytes. The
// same stage code serves the `filter` subcommands and the agent's in-process output chain.
//
// A Stage has Push, called for each frame in stream order, and Flush, called once at the
// end; both may emit frames to the next stage. Chain links stages; Run feeds them the lines
// of files, NewOutput builds the agent's output chain.
//
// Frames are lent, never given: a frame, its line and its event are valid only until the
// Push that received them returns. A reader pushes every line in one frame and one buffer,
// and the agent goes on changing what its events point at. A stage that keeps a frame past
// Push keeps the copy Frame.Hold returns; the package's tests run every stage and sink
// behind stages that hold frames so and require the same output.
//
// A chain that makes something other than the stream ends in a Sink: Text (the answer as
// plain text) and Verdict (how the run ended) consume frames and write what they make
// themselves; RunSink feeds one the lines of files.
package stages

import (
	"bytes"
	"sync/atomic"

	"github.com/basecontext/base-context/codec"
)

// Frame is one line of the stream on its way through a chain.
type Frame struct {
	// Event is the typed event, or nil for a frame read as bytes.
	Event codec.Event
	// LineNo is the input line number of a frame read as bytes, 0 otherwise.
	LineNo int

	line     []byte
	typ      string
	indexTyp string // typ of the line last checked with index: what RepeatsStrings compares with
	checked  bool
	indexed  bool // index holds the members of line
	err      error
	index    codec.Index // top-level members, recorded by Check
	id       uint64      // names the frame among all frames, from its first Check on

	// The line repeatsDeltaOf last found to repeat the line before it in its delta, and where
	// that delta string value starts in it (see repeatsDeltaOf).
	deltaLine lineID
	deltaAt   int
}

// frameIDs numbers the frames that check lines, so that a lineID names one line of one frame.
var frameIDs atomic.Uint64

// lineID names a line checked in a frame: the frame, and the count of lines checked in it.
// The zero lineID names none.
type lineID struct {
	frame uint64
	n     int
}

// EventFrame wraps a typed event.
func EventFrame(e codec.Event) *Frame {
	return &Frame{Event: e, typ: e.EventType(), checked: true}
}

// LineFrame wraps an encoded line (without its LF). The frame does not copy line: it is
// valid for as long as line is, which for a reader's frames is until Push returns.
func LineFrame(line []byte, lineNo int) *Frame {
	return &Frame{line: line, LineNo: lineNo}
}

// reuse makes f the frame of another line, keeping its storage: a reader pushes every line
// in the same frame, so reading a stream allocates nothing per line.
func (f *Frame) reuse(line []byte, lineNo int) *Frame {
	f.Event, f.LineNo, f.line, f.typ, f.checked, f.indexed, f.err = nil, lineNo, line, "", false, false, nil
	return f
}

// Line returns the frame's encoded line, encoding a typed event on first use. Like the frame,
// the line is lent: it is valid until Push returns (see Hold).
func (f *Frame) Line() []byte {
	if f.line == nil && f.Event != nil {
		f.line = f.Event.AppendJSON(make([]byte, 0, 256))
	}
	return f.line
}

// Hold returns a copy of f that stays valid after Push returns: what a stage keeps when it
// keeps a frame (to emit it later, or to look back at it). The copy owns its line, and is a
// line frame: a typed event is encoded, since its producer may go on changing what it points
// at, and a line read from input is copied, since the reader reuses its buffer and its frame.
func (f *Frame) Hold() *Frame {
	line := f.Line()
	return &Frame{LineNo: f.LineNo, line: append(make([]byte, 0, len(line)), line...),
		typ: f.typ, checked: f.checked, err: f.err}
}

// WriteLine writes the frame as one line to w: its line as it is, or its event encoded
// into w's buffer (nothing is kept: a frame is written once).
func (f *Frame) WriteLine(w *codec.LineWriter) error {
	if f.line == nil && f.Event != nil {
		return w.WriteEncoded(f.Event)
	}
	return w.WriteLine(f.line)
}

// Check reports why the frame's line is not a JSON object, nil when it is one. The answer is
// computed once.
func (f *Frame) Check() error {
	if !f.checked {
		f.checked = true
		if f.id == 0 {
			f.id = frameIDs.Add(1)
		}
		if f.err = codec.CheckObjectIndexed(f.line, &f.index); f.err == nil {
			f.indexedType()
		}
	}
	return f.err
}

// repeated makes f the frame of line, which its index has checked (CheckRepeatedLine).
func (f *Frame) repeated(line []byte, lineNo int) *Frame {
	f.reuse(line, lineNo)
	f.checked = true
	f.indexedType()
	return f
}

// indexedType completes the check of a line its index holds: its type.
func (f *Frame) indexedType() {
	f.indexed = true
	if !f.index.RepeatsStrings() || f.index.Changed(f.index.Type()) {
		f.indexTyp = eventType(f.line, f.index.Type())
	}
	f.typ = f.indexTyp
}

// Type returns the event type, or "" for a line that is not a valid JSON object or has no
// string "type". Stages pass frames of a type they do not handle through unchanged, so
// invalid lines flow through a chain in their place.
func (f *Frame) Type() string {
	f.Check()
	return f.typ
}

// Edited gives the frame line, a valid edit of its line made by the stage holding it, and
// returns it. The stage owns the frame during Push, so it is changed in place.
func (f *Frame) Edited(line []byte) *Frame {
	f.line, f.Event, f.indexed = line, nil, false
	return f
}

var typeKey = []string{"type"}

// eventType is the string value of member m of obj (a type), "" when it is not a string. The
// event and update types of the spec are returned as constants, not as copies made for each
// line.
func eventType(obj []byte, m codec.Member) string {
	switch m.View(obj) {
	case codec.TypeSession:
		return codec.TypeSession
	case codec.TypeAgentStart:
		return codec.TypeAgentStart
	case codec.TypeAgentEnd:
		return codec.TypeAgentEnd
	case codec.TypeTurnStart:
		return codec.TypeTurnStart
	case codec.TypeTurnEnd:
		return codec.TypeTurnEnd
	case codec.TypeMessageStart:
		return codec.TypeMessageStart
	case codec.TypeMessageUpdate:
		return codec.TypeMessageUpdate
	case codec.TypeMessageEnd:
		return codec.TypeMessageEnd
	case codec.TypeToolExecutionStart:
		return codec.TypeToolExecutionStart
	case codec.TypeToolExecutionUpdate:
		return codec.TypeToolExecutionUpdate
	case codec.TypeToolExecutionEnd:
		return codec.TypeToolExecutionEnd
	case codec.TypeSessionActionUpdate:
		return codec.TypeSessionActionUpdate
	case codec.TypeCompactionStart:
		return codec.TypeCompactionStart
	case codec.TypeCompactionEnd:
		return codec.TypeCompactionEnd
	case codec.TypeAutoRetryStart:
		return codec.TypeAutoRetryStart
	case codec.TypeAutoRetryEnd:
		return codec.TypeAutoRetryEnd
	case codec.TypeMCPServerStatus:
		return codec.TypeMCPServerStatus
	case codec.UpdateTextStart:
		return codec.UpdateTextStart
	case codec.UpdateTextDelta:
		return codec.UpdateTextDelta
	case codec.UpdateTextEnd:
		return codec.UpdateTextEnd
	case codec.UpdateThinkingStart:
		return codec.UpdateThinkingStart
	case codec.UpdateThinkingDelta:
		return codec.UpdateThinkingDelta
	case codec.UpdateThinkingEnd:
		return codec.UpdateThinkingEnd
	case codec.UpdateToolCallStart:
		return codec.UpdateToolCallStart
	case codec.UpdateToolCallDelta:
		return codec.UpdateToolCallDelta
	case codec.UpdateToolCallEnd:
		return codec.UpdateToolCallEnd
	case "start":
		return "start"
	case "done":
		return "done"
	case "error":
		return "error"
	}
	return m.Str(obj)
}

// checkedLine names the frame's line once checked; the zero lineID for a typed event or a
// line not checked as read (an edited one).
func (f *Frame) checkedLine() lineID {
	if !f.indexed || !f.index.Indexed(f.line) {
		return lineID{}
	}
	return lineID{f.id, f.index.Count()}
}

// repeatsDeltaOf reports whether the frame's line is the line prev, the one checked in this
// frame just before it, but for the text of its delta: the body of the string "delta" of
// the object "assistantMessageEvent". A stage that saw prev, changed nothing by it and
// would decide the same whatever the text may pass the frame on as it passed prev: the
// next delta of a block comes so.
//
// When prev was itself found so, its delta starting at deltaAt, a line that repeats prev but
// for the body of the string value starting at deltaAt repeats it in its delta: the bytes
// before deltaAt are prev's, so the string there is prev's delta, with prev's key, depth and
// container. Neither the key nor the container need be read again (most lines of the delta
// form come so).
func (f *Frame) repeatsDeltaOf(prev lineID) bool {
	return prev.frame != 0 && f.checkedLine() == (lineID{prev.frame, prev.n + 1}) && f.index.Repeats() &&
		f.changedDelta(prev)
}

// changedDelta is repeatsDeltaOf for the frame's line once known to be the line after prev
// and to repeat it but for the body of one string value.
func (f *Frame) changedDelta(prev lineID) bool {
	at := f.index.ChangedValue().ValStart
	if prev != f.deltaLine || at != f.deltaAt {
		if key, depth := f.index.ChangedString(); depth != 1 || string(key) != "delta" ||
			!f.index.ChangedIn("assistantMessageEvent") {
			return false
		}
	}
	f.deltaLine, f.deltaAt = lineID{prev.frame, prev.n + 1}, at
	return true
}

// nextDeltasFollow reports whether the lines after the line checked last in the frame that
// repeat it but for the body of its last string value (Index.RepeatLastRun) are the next
// deltas of its block (repeatsDeltaOf): that line, as read (the frame may hold an edit of it
// now), repeats the line before it in its delta, and that delta is its last string value.
func (f *Frame) nextDeltasFollow() bool {
	id := lineID{f.id, f.index.Count()}
	if id.frame == 0 || id != f.deltaLine && !(f.index.Repeats() && f.changedDelta(lineID{id.frame, id.n - 1})) {
		return false
	}
	return f.deltaAt == f.index.LastStringAt()
}

// tookDeltas makes f the frame of last, the last line of a run of the next deltas of a block
// its index has checked (Index.RepeatLastRun, after nextDeltasFollow).
func (f *Frame) tookDeltas(last []byte, lineNo int) {
	f.repeated(last, lineNo)
	f.deltaLine = lineID{f.id, f.index.Count()}
}

// repeatsBodiesOf reports whether the frame's line is the line prev, the one checked in this
// frame just before it, but for the bodies of string values that are all values of members
// named one of keys (as written: an escaped spelling of a key is not the key): the next
// update of the full form comes so, its delta and the texts of its snapshots changed. A stage
// that saw prev, changed nothing by it and reads no value of those members may pass the
// frame on as it passed prev.
func (f *Frame) repeatsBodiesOf(prev lineID, keys []string) bool {
	if prev.frame == 0 || f.checkedLine() != (lineID{prev.frame, prev.n + 1}) || !f.index.RepeatsStrings() {
		return false
	}
	if f.index.Repeats() && f.changedDelta(prev) { // the next delta of a block, known at once
		return isOneOf(deltaKey, keys)
	}
	for i := range f.index.Changes() {
		key, _ := f.index.ChangedStringAt(i)
		if !isOneOf(key, keys) {
			return false
		}
	}
	return true
}

var deltaKey = []byte("delta")

// isOneOf reports whether key, a raw key (nil for none), is one of keys.
func isOneOf(key []byte, keys []string) bool {
	if key == nil {
		return false
	}
	for _, k := range keys {
		if string(key) == k {
			return true
		}
	}
	return false
}

// members finds the top-level member named by each of keys in the frame's line (the last of
// duplicates, as jq reads them), from the index made when the line was checked when there is one.
func (f *Frame) members(keys []string, found []codec.Member) {
	line := f.Line()
	if f.indexed && f.index.Indexed(line) {
		f.index.FindEach(keys, found)
		return
	}
	codec.FindEach(line, keys, found)
}

// unambiguous reports that the frame's line, as read, is known to hold no duplicate key and
// no lone surrogate without walking it (codec.Index.Unambiguous).
func (f *Frame) unambiguous() bool {
	return f.indexed && f.index.Indexed(f.line) && f.index.Unambiguous()
}

// Emit hands a frame to the next stage or the output.
type Emit func(*Frame) error

// Stage is one streaming transform. Push receives frames in stream order and emits zero or
// more frames; Flush is called once at the end of the stream, and may emit more.
//
// A frame is lent to Push: the frame, its line and its event are valid only until Push
// returns (a reader pushes every line in the same frame, and the agent goes on changing what
// its events point at). During Push a stage may edit the frame (Edited) and emit it. A stage
// that keeps a frame past Push keeps f.Hold(), never f or f.Event. The frames a stage emits
// are lent to the next stage in the same way.
type Stage interface {
	Push(f *Frame, emit Emit) error
	Flush(emit Emit) error
}

// NextDeltas is what a stage does with each of the next deltas of a block (see DeltaSkipper).
type NextDeltas uint8

const (
	PushDeltas   NextDeltas = iota // not known: each is pushed
	PassDeltas                     // each is passed on as it came
	DropDeltas                     // each is dropped
	EditDeltas                     // each is edited: the stage emits its edit as Run finds it (DeltaFilter)
	AcceptDeltas                   // each the stage accepts is passed on as it came (DeltaFilter)
)

// A DeltaSkipper is a stage that can tell, right after a Push of a line read from input, what
// it would do with each of the lines after it that repeat it but for the text of their delta
// (Frame.repeatsDeltaOf: the next deltas of a block, most lines of the delta form): pass it on
// as it came (as it passed that line), drop it (as it dropped that line), or edit it (a
// DeltaFilter, which emits its edit of each as Run finds it), changing nothing in itself but
// what SkippedDeltas changes. Run then takes such lines in runs, without pushing each, and
// tells the stage. The lines of a run are unambiguous when the line pushed was
// (Frame.unambiguous: Index.RepeatLastRun stops before a new \u or \/ escape).
type DeltaSkipper interface {
	Stage
	DeltaSkipping
}

// A DeltaFilter is a DeltaSkipper that may answer AcceptDeltas (pass on as they came the
// deltas it accepts) or EditDeltas (emit its own edit of each). Run gives it each delta of a
// run, in order, as it finds them, and ends the run before the first it refuses, which is
// then pushed. Accepting a delta may change the stage (it was given that delta, and an
// editor has emitted its edit); refusing it must not. (A chain does not give its stages
// deltas so: it pushes every delta to a stage that answers either.)
type DeltaFilter interface {
	DeltaSkipper
	// AcceptsDelta is given the delta's string value as written, quotes included.
	AcceptsDelta(str []byte) bool
}

// DeltaSkipping is what a stage (DeltaSkipper) or a sink (which drops every line it is given)
// has to let Run skip the next deltas of a block.
type DeltaSkipping interface {
	NextDeltas() NextDeltas
	// SkippedDeltas tells the stage that a run of such lines went by, passed on or dropped
	// as it said.
	SkippedDeltas(run DeltaRun) error
}

// DeltaRun is a run of the next deltas of a block that went by a stage without a Push.
type DeltaRun struct {
	Lines int    // how many
	Last  *Frame // the frame of the last of them, as Push would have received it

	lines  []byte // the lines, with their LFs
	bodyAt int    // where each line's delta body starts
	after  int    // the bytes of each line after its delta body
}

// EachLine calls fn with each line of the run, in order, without its LF (a CR before it
// kept), valid until fn returns.
func (r DeltaRun) EachLine(fn func(line []byte) error) error {
	for rest := r.lines; len(rest) > 0; {
		end := bytes.IndexByte(rest, '\n')
		if err := fn(rest[:end]); err != nil {
			return err
		}
		rest = rest[end+1:]
	}
	return nil
}

// EachDelta calls fn with the delta of each line of the run, in order: the body of the
// string as written (escaped, without its quotes), valid until fn returns.
func (r DeltaRun) EachDelta(fn func(body []byte) error) error {
	return r.EachLine(func(line []byte) error { return fn(line[r.bodyAt : len(line)-r.after]) })
}

// Sink is where a chain ends when what it makes is not the stream but something else: plain
// text (Text), a verdict (Verdict). Consume receives frames in stream order, lent as to a
// stage's Push; Close is called once at the end of the stream. A sink emits no frames: it
// writes what it makes to the writer it was made with, and keeps what its caller may ask for.
type Sink interface {
	Consume(f *Frame) error
	Close() error
}

// Chain composes stages: each stage's output is the next one's input.
func Chain(stages ...Stage) Stage {
	switch len(stages) {
	case 0:
		return passThrough{}
	case 1:
		return stages[0]
	}
	c := &chain{stages: stages, links: make([]Emit, len(stages))}
	for i := range stages {
		if i+1 < len(stages) {
			next := stages[i+1]
			link := c.links[i+1 : i+2]
			c.links[i] = func(f *Frame) error { return next.Push(f, link[0]) }
		} else {
			c.links[i] = func(f *Frame) error { return c.sink(f) }
		}
	}
	return c
}

// chain links its stages once; a push only sets where the last stage's output goes.
type chain struct {
	stages []Stage
	links  []Emit // links[i] receives stage i's output
	sink   Emit

	skipping int // the stages that see the deltas skipped, as the last NextDeltas said
}

func (c *chain) Push(f *Frame, emit Emit) error {
	c.sink = emit
	return c.stages[0].Push(f, c.links[0])
}

func (c *chain) Flush(emit Emit) error {
	c.sink = emit
	for i, st := range c.stages {
		if err := st.Flush(c.links[i]); err != nil {
			return err
		}
	}
	return nil
}

// NextDeltas is what the chain does with the next deltas of a block: the first stage that
// does not pass them decides, and the stages after it do not see them.
func (c *chain) NextDeltas() NextDeltas {
	for i, st := range c.stages {
		sk, ok := st.(DeltaSkipper)
		if !ok {
			return PushDeltas
		}
		switch next := sk.NextDeltas(); {
		case next == PassDeltas:
		case next == DropDeltas:
			c.skipping = i + 1
			return next
		default:
			return PushDeltas
		}
	}
	c.skipping = len(c.stages)
	return PassDeltas
}

func (c *chain) SkippedDeltas(run DeltaRun) error {
	for _, st := range c.stages[:c.skipping] {
		if err := st.(DeltaSkipper).SkippedDeltas(run); err != nil {
			return err
		}
	}
	return nil
}

type passThrough struct{}

func (passThrough) Push(f *Frame, emit Emit) error { return emit(f) }
func (passThrough) Flush(Emit) error               { return nil }
func (passThrough) NextDeltas() NextDeltas         { return PassDeltas }
func (passThrough) SkippedDeltas(DeltaRun) error   { return nil }
