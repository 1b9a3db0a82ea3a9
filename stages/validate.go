package stages

import (
	"bytes"
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/exitcode"
)

// Violation is one way a line breaks the stream's specification (docs/stream.md).
type Violation struct {
	Line int    // line of the stream, counting from 1 over all inputs
	Type string // the line's event type, "" when it has none
	What string
}

// String is the report form, `line N: <type>: <what>`.
func (v Violation) String() string {
	if v.Type == "" {
		return fmt.Sprintf("line %d: %s", v.Line, v.What)
	}
	return fmt.Sprintf("line %d: %s: %s", v.Line, v.Type, v.What)
}

// ValidateOptions configures a Validator.
type ValidateOptions struct {
	// Strict also reports names the spec does not know: event types, message roles, content
	// block types and update types. Without it they are accepted unchecked, as consumers
	// must accept them.
	Strict bool
	// SkipInvalid drops lines that are not JSON objects instead of passing them on.
	SkipInvalid bool
	// Report receives each violation as it is found; nil only counts them.
	Report func(Violation)
}

// ValidateResult sums up a validated stream.
type ValidateResult struct {
	Lines      int
	Violations int
	Unknown    int    // lines of event types the spec does not define
	Form       string // "full", "delta", or "" when no line told
}

// Validator checks a stream against docs/stream.md as it passes through: the header first,
// every line a JSON object, the required fields and their types for every known event and
// message, and the orders of the stream (runs, turns, messages, the blocks of a message,
// tool executions, compactions, the messageId numbering of the delta form). It accepts
// either form and passes every line on unchanged, so it can sit anywhere in a pipe.
type Validator struct {
	opts   ValidateOptions
	line   int
	typ    string
	path   codec.Path // from the line to the value being checked
	result ValidateResult

	form     streamForm
	formLine int

	run        opener
	ranAt      int // the line of the first agent_start; 0 before it
	turn       opener
	compaction opener
	compReason string
	msg        openMessage
	lastID     int64
	blocks     []blockState
	tools      map[string]openTool

	// steady: the line checked last was a delta of a started block, which changes nothing
	// the validator follows when it passes. quiet: the last line if it was such a line,
	// passed in a stream whose form was known before it.
	steady bool
	quiet  lineID
	plain  bool // the last line was known to be unambiguous

	ambiguities     codec.AmbiguityWalker
	reportAmbiguity func(codec.Ambiguity) bool
}

// opener remembers the line that opened something not yet closed; 0 when nothing is open.
type opener struct{ line int }

func (o opener) open() bool { return o.line > 0 }

type openMessage struct {
	opener
	role string
	id   int64
}

type openTool struct {
	line int
	name string
}

// blockState follows one content block of the open assistant message.
type blockState struct {
	kind  string // "text", "thinking" or "toolcall"; "" before its start
	start int    // line of its *_start
	ended bool
}

type streamForm uint8

const (
	formUnknown streamForm = iota
	formFull
	formDelta
)

func (f streamForm) String() string {
	switch f {
	case formFull:
		return "full"
	case formDelta:
		return "delta"
	}
	return ""
}

// NewValidator returns a validating stage.
func NewValidator(opts ValidateOptions) *Validator {
	return &Validator{opts: opts, tools: map[string]openTool{}}
}

// Result returns the counts so far; after Flush, of the whole stream.
// Err is the result as the command's error (exit 1, saying how many violations in what),
// nil when the stream is valid; Summary says what was checked.
func (r ValidateResult) Err(strict bool) error {
	if r.Violations > 0 {
		return exitcode.New(exitcode.Failure, fmt.Sprintf("%s in %s", nounCount(r.Violations, "violation"), r.Summary(strict)))
	}
	return nil
}

// Summary is what was checked: "12 lines, full form", with the lines of unknown types
// (not checked unless strict).
func (r ValidateResult) Summary(strict bool) string {
	what := nounCount(r.Lines, "line")
	if r.Form != "" {
		what += ", " + r.Form + " form"
	}
	if r.Unknown > 0 && !strict {
		what += fmt.Sprintf(", %s of unknown event types (not checked)", nounCount(r.Unknown, "line"))
	}
	return what
}

// nounCount is "1 line", "2 lines".
func nounCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (v *Validator) Result() ValidateResult {
	r := v.result
	r.Form = v.form.String()
	return r
}

func (v *Validator) report(what string) {
	v.reportLine(v.line, v.typ, what)
}

func (v *Validator) reportLine(line int, typ, what string) {
	v.result.Violations++
	if v.opts.Report != nil {
		v.opts.Report(Violation{Line: line, Type: typ, What: what})
	}
}

// reportAt reports what about key (a member of the object at the current path).
func (v *Validator) reportAt(key, what string) {
	p := v.path.String()
	switch {
	case p == "":
		p = key
	case key != "":
		p += "." + key
	}
	v.report(p + " " + what)
}

func (v *Validator) enter(key string) { v.path = append(v.path, codec.KeyStep(key)) }
func (v *Validator) enterIndex(i int) { v.path = append(v.path, codec.IndexStep(i)) }
func (v *Validator) leave()           { v.path = v.path[:len(v.path)-1] }

func (v *Validator) Push(f *Frame, emit Emit) error {
	v.line++
	v.result.Lines++
	v.typ = ""
	v.path = v.path[:0]
	quiet := v.quiet
	v.quiet = lineID{}
	if err := f.Check(); err != nil {
		v.report("not a JSON object: " + err.Error())
		if v.opts.SkipInvalid {
			return nil
		}
		return emit(f)
	}
	if f.repeatsBodiesOf(quiet, unreadStrings) {
		// The line before but for texts no check reads (its delta, and in the full form the
		// texts of its snapshots): its checks pass as that line's did, and it changes no
		// more than that line did.
		v.typ = codec.TypeMessageUpdate
		v.quiet = f.checkedLine()
	} else {
		violations, form := v.result.Violations, v.form
		v.steady = false
		v.check(f)
		if v.steady && v.result.Violations == violations && form != formUnknown {
			v.quiet = f.checkedLine()
		}
	}
	v.plain = f.unambiguous() // most lines are known to be unambiguous once checked
	if !v.plain {
		v.checkAmbiguities(f.Line())
	}
	return emit(f)
}

// NextDeltas: after a quiet line known to be unambiguous, the next deltas of its block pass
// its checks as it did (only texts no check reads differ), and Run gives only those that
// stay unambiguous (their deltas without a \u or \/ escape).
func (v *Validator) NextDeltas() NextDeltas {
	if v.quiet != (lineID{}) && v.plain {
		return PassDeltas
	}
	return PushDeltas
}

func (v *Validator) SkippedDeltas(run DeltaRun) error {
	v.line += run.Lines
	v.result.Lines += run.Lines
	v.quiet = run.Last.checkedLine()
	return nil
}

// unreadStrings names the members whose string values no check reads beyond their kind
// (none has an enum or a const in codec's description, and the validator reads the value of
// no member of these names): a line that differs from one that passed only in the bodies
// of such strings passes alike.
var unreadStrings = []string{"delta", "text", "thinking"}

// checkAmbiguities reports what parsers read differently: duplicate keys (filters, like jq,
// take the last; other consumers the first) and lone surrogate escapes.
func (v *Validator) checkAmbiguities(line []byte) {
	if v.reportAmbiguity == nil { // made once: a closure made per line would be allocated per line
		v.reportAmbiguity = func(a codec.Ambiguity) bool {
			v.report(a.String())
			return true
		}
	}
	v.ambiguities.Each(line, v.reportAmbiguity)
}

func (v *Validator) check(f *Frame) {
	line := f.Line()
	var tm [1]codec.Member
	f.members(typeKey, tm[:])
	if !tm[0].Exists() {
		v.report("type is missing")
		return
	}
	if raw := tm[0].Raw(line); kindOfValue(raw) != kindString {
		v.report(fmt.Sprintf("type is %s, expected a string", kindOfValue(raw)))
		return
	}
	v.typ = f.Type()
	if v.line == 1 && v.typ != codec.TypeSession {
		v.report("the stream does not start with a session header")
	}

	switch v.typ {
	case codec.TypeSession:
		v.header(f)
	case codec.TypeAgentStart:
		if v.run.open() {
			v.report(fmt.Sprintf("agent_start at line %d has no agent_end", v.run.line))
			v.closeRun()
		}
		v.run = opener{v.line}
		v.ranAt = cmp.Or(v.ranAt, v.line)
	case codec.TypeAgentEnd:
		e := v.event(f, agentEndShape)
		v.messageArray(e.raw("messages"), "messages", "")
		if !v.run.open() {
			v.report("agent_end without agent_start")
		}
		v.closeRun()
	case codec.TypeTurnStart:
		if !v.run.open() {
			v.report("turn_start outside an agent run (no agent_start before it)")
		}
		if v.turn.open() {
			v.report(fmt.Sprintf("turn_start at line %d has no turn_end", v.turn.line))
		}
		v.closeMessage()
		v.turn = opener{v.line}
	case codec.TypeTurnEnd:
		e := v.event(f, turnEndShape)
		if e.has("message") {
			v.enter("message")
			v.message(e.raw("message"), "")
			v.leave()
		}
		v.messageArray(e.raw("toolResults"), "toolResults", "toolResult")
		if !v.turn.open() {
			v.report("turn_end without turn_start")
		}
		v.closeMessage()
		v.turn = opener{}
	case codec.TypeMessageStart:
		v.messageStart(f)
	case codec.TypeMessageUpdate:
		v.messageUpdate(f)
	case codec.TypeMessageEnd:
		v.messageEnd(f)
	case codec.TypeToolExecutionStart, codec.TypeToolExecutionUpdate, codec.TypeToolExecutionEnd:
		v.toolExecution(f)
	case codec.TypeSessionActionUpdate:
		e := v.event(f, sessionActionShape)
		if e.has("actions") {
			v.enter("actions")
			v.actions(e.raw("actions"))
			v.leave()
		}
	case codec.TypeCompactionStart:
		e := v.event(f, compactionStartShape)
		if v.compaction.open() {
			v.report(fmt.Sprintf("compaction_start at line %d has no compaction_end", v.compaction.line))
		}
		v.compaction, v.compReason = opener{v.line}, strings.Clone(e.str("reason"))
	case codec.TypeCompactionEnd:
		e := v.event(f, compactionEndShape)
		if e.has("result") {
			v.enter("result")
			v.object(e.raw("result"), compactionResultShape)
			v.leave()
		}
		switch reason := e.str("reason"); {
		case !v.compaction.open():
			v.report("compaction_end without compaction_start")
		case e.has("reason") && reason != v.compReason:
			v.report(fmt.Sprintf("reason is %q, but compaction_start at line %d says %q", reason, v.compaction.line, v.compReason))
		}
		v.compaction = opener{}
	case codec.TypeAutoRetryStart:
		v.event(f, autoRetryStartShape)
		if v.run.open() {
			v.report(fmt.Sprintf("auto_retry_start inside the agent run of line %d (a retry follows agent_end)", v.run.line))
		}
	case codec.TypeAutoRetryEnd:
		v.event(f, autoRetryEndShape)
	case codec.TypeMCPServerStatus:
		v.event(f, mcpServerStatusShape)
		if v.ranAt > 0 {
			v.report(fmt.Sprintf("mcp_server_status after the agent_start of line %d (the servers start before the first run)", v.ranAt))
		}
	case codec.TypeSkillsLoaded:
		v.event(f, skillsLoadedShape)
	case codec.TypeSkillActivated:
		v.event(f, skillActivatedShape)
	default:
		v.result.Unknown++
		if v.opts.Strict {
			v.report("unknown event type")
		}
	}
}

func (v *Validator) Flush(emit Emit) error {
	v.path = v.path[:0]
	if v.msg.open() {
		v.closeMessageAt("stream")
	}
	if v.turn.open() {
		v.reportLine(v.turn.line, codec.TypeTurnStart, "no turn_end before the end of the stream")
	}
	if v.run.open() {
		v.reportLine(v.run.line, codec.TypeAgentStart, "no agent_end before the end of the stream")
	}
	open := make([]string, 0, len(v.tools))
	for id := range v.tools {
		open = append(open, id)
	}
	sort.Slice(open, func(i, j int) bool { return v.tools[open[i]].line < v.tools[open[j]].line })
	for _, id := range open {
		v.reportLine(v.tools[id].line, codec.TypeToolExecutionStart, fmt.Sprintf("tool call %q has no tool_execution_end before the end of the stream", id))
	}
	if v.compaction.open() {
		v.reportLine(v.compaction.line, codec.TypeCompactionStart, "no compaction_end before the end of the stream")
	}
	return nil
}

// closeRun ends the open run, reporting what it leaves open.
func (v *Validator) closeRun() {
	if v.turn.open() {
		v.report(fmt.Sprintf("turn_start at line %d has no turn_end", v.turn.line))
		v.turn = opener{}
	}
	v.closeMessage()
	v.run = opener{}
}

// closeMessage reports an open message that something other than its message_end closed.
func (v *Validator) closeMessage() {
	if v.msg.open() {
		v.report(fmt.Sprintf("message_start at line %d has no message_end", v.msg.line))
		v.msg = openMessage{}
		v.blocks = v.blocks[:0]
	}
}

// closeMessageAt reports the open message as cut off by the end of the stream.
func (v *Validator) closeMessageAt(what string) {
	v.reportLine(v.msg.line, codec.TypeMessageStart, "no message_end before the end of the "+what)
	v.msg = openMessage{}
	v.blocks = v.blocks[:0]
}

// members is room for the fields of one shape.
type members [maxShapeFields]codec.Member

// found is an object checked against a shape, with the members it has of the shape's
// fields (fields of the wrong kind count as absent).
type found struct {
	s   *shape
	obj []byte
	m   members
}

func (f *found) member(key string) codec.Member {
	if f.s != nil {
		for i, k := range f.s.keys {
			if k == key {
				return f.m[i]
			}
		}
	}
	return codec.Member{}
}

func (f *found) has(key string) bool { return f.member(key).Exists() }
func (f *found) raw(key string) []byte { // nil when absent
	if m := f.member(key); m.Exists() {
		return m.Raw(f.obj)
	}
	return nil
}
func (f *found) str(key string) string { return strView(f.obj, f.member(key)) } // valid while f.obj is
func (f *found) int(key string) int64  { return f.member(key).Int(f.obj) }

// event checks the top-level fields of the frame's line against s.
func (v *Validator) event(f *Frame, s *shape) (o found) {
	o.s, o.obj = s, f.Line()
	f.members(s.keys, o.m[:len(s.keys)])
	v.checkFields(&o)
	return o
}

// object checks obj, the value at the current path, against s.
func (v *Validator) object(obj []byte, s *shape) (o found) {
	if k := kindOfValue(obj); k != kindObject {
		v.reportAt("", fmt.Sprintf("is %s, expected an object", k))
		return o
	}
	o.s, o.obj = s, obj
	codec.FindEach(obj, s.keys, o.m[:len(s.keys)])
	v.checkFields(&o)
	return o
}

// checkFields reports the fields of o's shape that o lacks, and those of the wrong kind
// (which it then clears, so that callers do not look inside them).
func (v *Validator) checkFields(o *found) {
	for i, fd := range o.s.fields {
		if !o.m[i].Exists() {
			if !fd.optional {
				v.reportAt(fd.key, "is missing")
			}
			continue
		}
		raw := o.m[i].Raw(o.obj)
		if !fd.want.accepts(raw) {
			v.reportAt(fd.key, fmt.Sprintf("is %s, expected %s", describe(raw), fd.want))
			o.m[i] = codec.Member{}
			continue
		}
		if fd.konst != "" && string(raw) != fd.konst {
			v.reportAt(fd.key, fmt.Sprintf("is %s, expected %s", raw, fd.konst))
		}
		if fd.oneOf != nil {
			if s := strView(o.obj, o.m[i]); !oneOf(s, fd.oneOf) {
				v.reportAt(fd.key, fmt.Sprintf("is %q, expected one of %s", s, strings.Join(fd.oneOf, ", ")))
			}
		}
	}
}

// describe names a value for a message: its kind, and the number itself for numbers.
func describe(raw []byte) string {
	if k := kindOfValue(raw); k != kindNumber {
		return k.String()
	}
	return string(raw)
}

func (v *Validator) header(f *Frame) {
	if v.line != 1 {
		v.report("session header after line 1 (the header is the first line)")
	}
	v.event(f, headerShape) // its version is a const of the description
}

// messageArray checks arr, the member key of the current object, as a list of messages,
// each of role wantRole when it is not "". A nil arr (absent or of the wrong kind, already
// reported) is skipped.
func (v *Validator) messageArray(arr []byte, key, wantRole string) {
	if arr == nil {
		return
	}
	v.enter(key)
	codec.EachElem(arr, func(i int, elem []byte) bool {
		v.enterIndex(i)
		v.message(elem, wantRole)
		v.leave()
		return true
	})
	v.leave()
}

// message checks one AgentMessage at the current path and returns its role. With wantRole
// set, another role is a violation.
func (v *Validator) message(msg []byte, wantRole string) (role string, contentLen int) {
	if k := kindOfValue(msg); k != kindObject {
		v.reportAt("", fmt.Sprintf("is %s, expected a message object", k))
		return "", 0
	}
	rm := codec.Find(msg, "role")
	if !rm.Exists() {
		v.reportAt("role", "is missing")
		return "", 0
	}
	if k := kindOfValue(rm.Raw(msg)); k != kindString {
		v.reportAt("role", fmt.Sprintf("is %s, expected a string", k))
		return "", 0
	}
	role = strView(msg, rm)
	if wantRole != "" && role != wantRole {
		v.reportAt("role", fmt.Sprintf("is %q, expected %q", role, wantRole))
	}
	switch role {
	case "user":
		o := v.object(msg, userShape)
		contentLen = v.content(o.raw("content"), userBlocks)
	case "assistant":
		o := v.object(msg, assistantShape)
		contentLen = v.content(o.raw("content"), assistantBlocks)
		if o.has("usage") {
			v.enter("usage")
			usage := v.object(o.raw("usage"), usageShape)
			if usage.has("cost") {
				v.enter("cost")
				v.object(usage.raw("cost"), costShape)
				v.leave()
			}
			v.leave()
		}
		stop := o.str("stopReason")
		failed := stop == codec.StopReasonError || stop == codec.StopReasonAborted
		switch {
		case o.has("stopReason") && failed && !o.has("errorMessage"):
			v.reportAt("errorMessage", fmt.Sprintf("is missing (it is required when stopReason is %q)", stop))
		case o.has("stopReason") && !failed && o.has("errorMessage"):
			v.reportAt("errorMessage", fmt.Sprintf("is present, but stopReason is %q (only error and aborted carry one)", stop))
		}
	case "toolResult":
		o := v.object(msg, toolResultShape)
		contentLen = v.content(o.raw("content"), userBlocks)
	case "bashExecution":
		v.object(msg, bashExecutionShape)
	case "custom":
		o := v.object(msg, customShape)
		v.content(o.raw("content"), userBlocks)
	case "branchSummary":
		v.object(msg, branchSummaryShape)
	case "compactionSummary":
		v.object(msg, compactionSummaryShape)
	default:
		if v.opts.Strict {
			v.reportAt("role", fmt.Sprintf("is %q, an unknown role", role))
		}
	}
	return role, contentLen
}

// content checks a message's content: a string (where its shape allows one) or an array
// of blocks of the allowed types. It returns the number of blocks.
func (v *Validator) content(raw []byte, allowed []string) (n int) {
	if kindOfValue(raw) != kindArray {
		return 0
	}
	v.enter("content")
	codec.EachElem(raw, func(i int, block []byte) bool {
		v.enterIndex(i)
		v.block(block, allowed)
		v.leave()
		n++
		return true
	})
	v.leave()
	return n
}

// block checks one content block at the current path.
func (v *Validator) block(block []byte, allowed []string) {
	if k := kindOfValue(block); k != kindObject {
		v.reportAt("", fmt.Sprintf("is %s, expected a content block object", k))
		return
	}
	tm := codec.Find(block, "type")
	if !tm.Exists() || kindOfValue(tm.Raw(block)) != kindString {
		v.reportAt("type", "is missing or not a string")
		return
	}
	typ := strView(block, tm)
	s := blockShapes[typ]
	if s == nil {
		if v.opts.Strict {
			v.reportAt("type", fmt.Sprintf("is %q, an unknown content block type", typ))
		}
		return
	}
	if !oneOf(typ, allowed) {
		v.reportAt("type", fmt.Sprintf("is %q, which this message cannot hold (expected %s)", typ, strings.Join(allowed, ", ")))
		return
	}
	v.object(block, s)
}

func (v *Validator) actions(obj []byte) {
	o := v.object(obj, actionsShape)
	for _, key := range []string{"steering", "followUps"} {
		if !o.has(key) {
			continue
		}
		v.enter(key)
		codec.EachElem(o.raw(key), func(i int, elem []byte) bool {
			if k := kindOfValue(elem); k != kindString {
				v.enterIndex(i)
				v.reportAt("", fmt.Sprintf("is %s, expected a string", k))
				v.leave()
			}
			return true
		})
		v.leave()
	}
	if o.has("active") {
		v.enter("active")
		v.object(o.raw("active"), activeShape)
		v.leave()
	}
}

func (v *Validator) toolExecution(f *Frame) {
	s := toolStartShape
	switch v.typ {
	case codec.TypeToolExecutionUpdate:
		s = toolUpdateShape
	case codec.TypeToolExecutionEnd:
		s = toolEndShape
	}
	e := v.event(f, s)
	if !e.has("toolCallId") {
		return
	}
	id, name := e.str("toolCallId"), e.str("toolName")
	started, ok := v.tools[id]
	switch {
	case v.typ == codec.TypeToolExecutionStart:
		if ok {
			v.report(fmt.Sprintf("tool call %q was already started at line %d", id, started.line))
		}
		v.tools[strings.Clone(id)] = openTool{line: v.line, name: strings.Clone(name)}
		return
	case !ok:
		v.report(fmt.Sprintf("tool call %q has no tool_execution_start before it", id))
	case e.has("toolName") && name != started.name:
		v.report(fmt.Sprintf("toolName is %q, but tool_execution_start at line %d says %q", name, started.line, started.name))
	}
	if v.typ == codec.TypeToolExecutionEnd {
		delete(v.tools, id)
	}
}

// settleForm records the stream's form from an assistant message line, the first one that
// tells, and reports a line of the other form. hasID says whether the line has a messageId.
func (v *Validator) settleForm(hasID bool) {
	form := formFull
	if hasID {
		form = formDelta
	}
	switch {
	case v.form == formUnknown:
		v.form, v.formLine = form, v.line
	case form == formDelta && v.form == formFull:
		v.reportAt("messageId", fmt.Sprintf("is present, but the stream is in the full form (line %d has none)", v.formLine))
	case form == formFull && v.form == formDelta:
		v.reportAt("messageId", fmt.Sprintf("is missing, but the stream is in the delta form since line %d", v.formLine))
	}
}

// messageID checks the messageId of a message event (e). Only assistant messages carry
// one, in the delta form: message_start takes the next number from 1, its updates and its
// end repeat it.
func (v *Validator) messageID(e *found, assistant bool) {
	has := e.has("messageId")
	if !assistant {
		if has {
			v.reportAt("messageId", "is present, but only assistant messages carry one")
		}
		return
	}
	v.settleForm(has)
	if !has {
		return
	}
	id := e.int("messageId")
	if id < 1 {
		v.reportAt("messageId", fmt.Sprintf("is %s, expected a number from 1", e.raw("messageId")))
		return
	}
	switch {
	case v.typ == codec.TypeMessageStart:
		if id != v.lastID+1 {
			v.reportAt("messageId", fmt.Sprintf("is %d, expected %d (assistant messages are numbered from 1 in stream order)", id, v.lastID+1))
		}
		v.lastID = id
	case v.form == formDelta && v.msg.open() && v.msg.role == "assistant" && id != v.msg.id:
		v.reportAt("messageId", fmt.Sprintf("is %d, but the open message (line %d) is %d", id, v.msg.line, v.msg.id))
	}
}

func (v *Validator) messageStart(f *Frame) {
	e := v.event(f, messageEventShape)
	role := ""
	if e.has("message") {
		v.enter("message")
		role, _ = v.message(e.raw("message"), "")
		v.leave()
	}
	v.messageID(&e, role == "assistant")
	if v.msg.open() {
		v.report(fmt.Sprintf("message_start at line %d has no message_end", v.msg.line))
	}
	v.msg = openMessage{opener: opener{v.line}, role: strings.Clone(role), id: v.lastID}
	v.blocks = v.blocks[:0]
}

func (v *Validator) messageEnd(f *Frame) {
	e := v.event(f, messageEventShape)
	role, contentLen := "", -1
	if e.has("message") {
		v.enter("message")
		role, contentLen = v.message(e.raw("message"), "")
		v.leave()
	}
	v.messageID(&e, role == "assistant")
	if !v.msg.open() {
		v.report("message_end without message_start")
		return
	}
	if e.has("message") && role != v.msg.role {
		v.report(fmt.Sprintf("message role is %q, but message_start at line %d is %q", role, v.msg.line, v.msg.role))
	}
	for i, b := range v.blocks {
		switch {
		case b.kind == "":
		case !b.ended:
			v.report(fmt.Sprintf("block %d: %s_start at line %d has no %s_end", i, b.kind, b.start, b.kind))
		case contentLen >= 0 && i >= contentLen:
			v.report(fmt.Sprintf("block %d had updates, but message.content has %d blocks", i, contentLen))
		}
	}
	v.msg = openMessage{}
	v.blocks = v.blocks[:0]
}

// maxContentIndex bounds the blocks the validator follows, so that a wild contentIndex
// cannot make it allocate without limit.
const maxContentIndex = 1 << 16

func (v *Validator) messageUpdate(f *Frame) {
	e := v.event(f, updateEventShape)
	v.messageID(&e, true)
	snapshot := e.raw("message")
	switch v.form {
	case formFull:
		if snapshot == nil {
			v.reportAt("message", "is missing (a full-form update carries the snapshot)")
		} else {
			v.enter("message")
			v.message(snapshot, "assistant")
			v.leave()
		}
	case formDelta:
		if e.has("message") {
			v.reportAt("message", "is present, but the delta form drops the snapshot")
		}
	}
	switch {
	case !v.msg.open():
		v.report("message_update without message_start")
	case v.msg.role != "assistant":
		v.report(fmt.Sprintf("message_update of a %q message (line %d); only assistant messages stream", v.msg.role, v.msg.line))
	}
	if !e.has("assistantMessageEvent") {
		return
	}
	v.enter("assistantMessageEvent")
	defer v.leave()
	u := v.object(e.raw("assistantMessageEvent"), updateShape)
	if !u.has("type") {
		return
	}
	utype := u.str("type")
	kind, phase, known := splitUpdateType(utype)
	if !known {
		switch utype {
		case "start", "done", "error":
			v.reportAt("type", fmt.Sprintf("is %q: that stream event is never a message_update (it becomes message_start or message_end)", utype))
		default:
			if v.opts.Strict {
				v.reportAt("type", fmt.Sprintf("is %q, an unknown update type", utype))
			}
		}
		return
	}
	switch {
	case phase == "delta" && !u.has("delta"):
		v.reportAt("delta", "is missing")
	case phase == "end" && kind != "toolcall" && !u.has("content"):
		v.reportAt("content", "is missing")
	case phase == "end" && kind == "toolcall":
		if !u.has("toolCall") {
			v.reportAt("toolCall", "is missing")
			break
		}
		v.enter("toolCall")
		v.block(u.raw("toolCall"), toolCallBlock)
		v.leave()
	case phase == "start" && kind == "toolcall" && v.form == formDelta:
		if !u.has("toolCall") {
			v.reportAt("toolCall", "is missing (a delta-form toolcall_start names the call)")
			break
		}
		v.enter("toolCall")
		v.object(u.raw("toolCall"), toolCallRefShape)
		v.leave()
	}
	switch v.form {
	case formFull:
		switch partial := u.raw("partial"); {
		case partial == nil:
			v.reportAt("partial", "is missing (a full-form update carries the snapshot)")
		case bytes.Equal(partial, snapshot):
			// The same snapshot as the outer message, as it should be: checked once.
		default:
			v.enter("partial")
			v.message(u.raw("partial"), "assistant")
			v.leave()
		}
	case formDelta:
		if u.has("partial") {
			v.reportAt("partial", "is present, but the delta form drops it")
		}
	}
	if !u.has("contentIndex") || !v.msg.open() {
		return
	}
	index := u.int("contentIndex")
	if index < 0 || index >= maxContentIndex {
		v.reportAt("contentIndex", fmt.Sprintf("is %d, out of range", index))
		return
	}
	v.blockOrder(int(index), kind, phase)
	v.steady = phase == "delta"
}

// blockOrder checks one update against the per-block order start → deltas → end.
func (v *Validator) blockOrder(i int, kind, phase string) {
	for len(v.blocks) <= i {
		v.blocks = append(v.blocks, blockState{})
	}
	b := &v.blocks[i]
	switch {
	case phase == "start":
		if b.kind != "" {
			v.report(fmt.Sprintf("block %d was already started at line %d", i, b.start))
		}
		*b = blockState{kind: kind, start: v.line}
		return
	case b.kind == "":
		v.report(fmt.Sprintf("block %d: %s_%s before its %s_start", i, kind, phase, kind))
		*b = blockState{kind: kind, start: v.line} // follow it from here on
	case b.kind != kind:
		v.report(fmt.Sprintf("block %d: %s_%s, but the block is %s (started at line %d)", i, kind, phase, b.kind, b.start))
		return
	case b.ended:
		v.report(fmt.Sprintf("block %d: %s_%s after its %s_end", i, kind, phase, kind))
		return
	}
	if phase == "end" {
		b.ended = true
	}
}

// splitUpdateType splits "text_delta" into its block kind and phase. Both are returned as
// constants, so they stay valid after the line is gone.
func splitUpdateType(t string) (kind, phase string, ok bool) {
	k, p, _ := strings.Cut(t, "_")
	switch k {
	case "text":
		kind = "text"
	case "thinking":
		kind = "thinking"
	case "toolcall":
		kind = "toolcall"
	default:
		return "", "", false
	}
	switch p {
	case "start":
		return kind, "start", true
	case "delta":
		return kind, "delta", true
	case "end":
		return kind, "end", true
	}
	return "", "", false
}

// The shapes the validator checks, made once from codec's description of the stream (the
// one place members are declared): the members of each event, message and block, in the
// encoders' order, without the discriminator the validator reads first.
var (
	headerShape          = eventShape(codec.TypeSession)
	agentEndShape        = eventShape(codec.TypeAgentEnd)
	turnEndShape         = eventShape(codec.TypeTurnEnd)
	messageEventShape    = eventShape(codec.TypeMessageStart)
	updateEventShape     = eventShape(codec.TypeMessageUpdate)
	toolStartShape       = eventShape(codec.TypeToolExecutionStart)
	toolUpdateShape      = eventShape(codec.TypeToolExecutionUpdate)
	toolEndShape         = eventShape(codec.TypeToolExecutionEnd)
	sessionActionShape   = eventShape(codec.TypeSessionActionUpdate)
	compactionStartShape = eventShape(codec.TypeCompactionStart)
	compactionEndShape   = eventShape(codec.TypeCompactionEnd)
	autoRetryStartShape  = eventShape(codec.TypeAutoRetryStart)
	autoRetryEndShape    = eventShape(codec.TypeAutoRetryEnd)
	mcpServerStatusShape = eventShape(codec.TypeMCPServerStatus)
	skillsLoadedShape    = eventShape(codec.TypeSkillsLoaded)
	skillActivatedShape  = eventShape(codec.TypeSkillActivated)

	// updateShape has the members of every update type; which ones a type needs is checked
	// in messageUpdate.
	updateShape           = shapeFrom(codec.ShapeOf(&codec.AssistantMessageEvent{}))
	toolCallRefShape      = shapeFrom(codec.ToolCallRefShape())
	actionsShape          = shapeFrom(codec.ShapeOf(&codec.SessionActions{}))
	activeShape           = shapeFrom(codec.ShapeOf(&codec.ActiveAction{}))
	compactionResultShape = shapeFrom(codec.ShapeOf(&codec.CompactionResult{}))
	usageShape            = shapeFrom(codec.ShapeOf(&codec.Usage{}))
	costShape             = shapeFrom(codec.ShapeOf(&codec.Cost{}))

	userShape              = messageShape("user")
	assistantShape         = messageShape("assistant")
	toolResultShape        = messageShape("toolResult")
	bashExecutionShape     = messageShape("bashExecution")
	customShape            = messageShape("custom")
	branchSummaryShape     = messageShape("branchSummary")
	compactionSummaryShape = messageShape("compactionSummary")

	blockShapes     = unionShapes(codec.Contents())
	userBlocks      = codec.Messages().Variant("user").Member("content").Allowed
	assistantBlocks = codec.Messages().Variant("assistant").Member("content").Allowed
	toolCallBlock   = codec.Updates().Variant(codec.UpdateToolCallEnd).Member("toolCall").Allowed
)

func eventShape(typ string) *shape    { return shapeFrom(codec.Events().Variant(typ)) }
func messageShape(role string) *shape { return shapeFrom(codec.Messages().Variant(role)) }

func unionShapes(u *codec.Union) map[string]*shape {
	shapes := map[string]*shape{}
	for _, v := range u.Variants {
		shapes[v.Tag] = shapeFrom(v)
	}
	return shapes
}
