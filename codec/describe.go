package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// The one description of the stream. The Go types of this package are it: each member of an
// object is a struct field tagged `json:"key"` (or `json:"key,omitempty"` when it is left
// out empty), in the order the encoders write the keys. A few more tags say what the Go type
// cannot:
//
//	kind:"number"        an int64 the stream may hold as any number (timestamps, counts);
//	kind:"integer"       one it must hold as an integer (the default for int64, stated where
//	                     the validator insists); kind:"object", kind:"string|array" for raw members
//	enum:"a,b,c"         the closed set of a string's values
//	when:"x,y"           written only when the object's discriminator is one of these
//	form:"full"          only in the full form (required there); form:"deltas" only in the
//	                     delta form (required there unless form:"deltas,optional")
//	blocks:"text,image"  the content block types a content member may hold
//	default:"{}"         what a raw member writes when it is empty
//	const:"3"            the value the member always holds (in this version of the stream)
//	hook:"name"          an irregular member whose coding is written by hand (see hooks)
//	nullable:"true"      the member may hold null (objects outside the stream: rpc's data)
//	doc:"…"              one line for the JSON Schema
//
// The unions (events by type, messages by role, content blocks by type, streaming updates
// by type) are the tables below. Everything else reads this description: the JSON Schema
// (JSONSchema), filter validate's shape checks (stages), the encoders and the decoders.

// Kind is the JSON kind a member holds.
type Kind uint8

const (
	KindAny Kind = iota
	KindString
	KindInteger
	KindNumber
	KindBoolean
	KindObject
	KindArray
	KindStringOrArray
)

// Form is the stream form a member belongs to.
type Form uint8

const (
	FormBoth   Form = iota
	FormFull        // only in the full form
	FormDeltas      // only in the delta form (--json-deltas)
)

// ShapeMember is one member of an object.
type ShapeMember struct {
	Key string
	// Kind of the value; for KindArray and KindStringOrArray, Elem is the elements' kind.
	Kind, Elem Kind
	// Optional: the encoders leave the member out when it is empty.
	Optional bool
	// Form: the member exists only in one form; FormRequired says it is required there.
	Form         Form
	FormRequired bool
	// When lists the values of the object's discriminator for which the member is written.
	When []string
	Enum []string
	// Shape is the object's (or each element's) shape; Union, when the value is told apart
	// by a discriminator, with Allowed the variants it may be (nil: any).
	Shape   *Shape
	Union   *Union
	Allowed []string
	Default string // raw JSON written when the (raw) member is empty
	Const   string // raw JSON the member always holds (the header's version), "" if none
	Hook    string // names the hand-written coding of an irregular member
	Doc     string
	// Nullable: the member may hold null instead of a value of its kind.
	Nullable bool

	index int // of the struct field
}

// MayBeAbsent says whether an object of the member's shape may lack it in some line:
// optional, present only for some discriminator values, or only in one form.
func (m *ShapeMember) MayBeAbsent() bool { return m.Optional || m.When != nil || m.Form != FormBoth }

// Shape is the members of one kind of object, in key order. A variant of a union has its
// discriminator value in Tag; the discriminator is written first, before Members (unless it
// is a member itself, as in AssistantMessageEvent).
type Shape struct {
	Name    string // the Go type's name; a view of a union's variant adds ".tag"
	Tag     string
	Union   *Union
	Doc     string
	Members []ShapeMember

	goType reflect.Type
}

// Member returns the member key, or nil.
func (s *Shape) Member(key string) *ShapeMember {
	for i := range s.Members {
		if s.Members[i].Key == key {
			return &s.Members[i]
		}
	}
	return nil
}

// Keys returns the members' keys in order.
func (s *Shape) Keys() []string {
	keys := make([]string, len(s.Members))
	for i, m := range s.Members {
		keys[i] = m.Key
	}
	return keys
}

// Union is objects told apart by the string member Key.
type Union struct {
	Name     string // "Event", "Message", "Content", "Update"
	Key      string // "type" or "role"
	Doc      string
	Variants []*Shape
	// Closed: the variants are all there are (rpc's commands); the stream's unions are open,
	// a consumer ignores a type it does not know.
	Closed bool
	// Otherwise, in a closed union, is the shape of an object whose tag no variant has (rpc's
	// error response to a command of an unknown type); nil: such an object is not valid.
	Otherwise *Shape
}

// Variant returns the variant of tag, or nil for a tag the description does not know.
func (u *Union) Variant(tag string) *Shape {
	for _, v := range u.Variants {
		if v.Tag == tag {
			return v
		}
	}
	return nil
}

// Tags returns the variants' discriminator values in order.
func (u *Union) Tags() []string {
	tags := make([]string, len(u.Variants))
	for i, v := range u.Variants {
		tags[i] = v.Tag
	}
	return tags
}

// variant is one row of a union table.
type variant struct {
	value any    // a nil pointer to the variant's type; nil for views (updates)
	tag   string // for views
	doc   string
	// override replaces members of the view (the delta-form toolcall_start's toolCall).
	override []ShapeMember
}

// The union tables: every event type, message role, content block type and update type.
var (
	eventTable = []variant{
		{value: (*Header)(nil), doc: "The session header: the first line of the stream."},
		{value: (*AgentStart)(nil), doc: "A run of the agent loop begins."},
		{value: (*AgentEnd)(nil), doc: "The run ends; messages holds every message it added."},
		{value: (*TurnStart)(nil), doc: "A turn begins: one assistant response and the tools it calls."},
		{value: (*TurnEnd)(nil), doc: "The turn ends with its assistant message and tool results."},
		{value: (*MessageStart)(nil), doc: "A message begins (assistant messages then stream updates)."},
		{value: (*MessageUpdate)(nil), doc: "One streaming update of the open assistant message."},
		{value: (*MessageEnd)(nil), doc: "The message is complete."},
		{value: (*ToolExecutionStart)(nil), doc: "A tool call begins to run."},
		{value: (*ToolExecutionUpdate)(nil), doc: "Output so far of a running tool."},
		{value: (*ToolExecutionEnd)(nil), doc: "A tool call finished."},
		{value: (*SessionActionUpdate)(nil), doc: "The queued or active actions changed."},
		{value: (*CompactionStart)(nil), doc: "A compaction of the context begins."},
		{value: (*CompactionEnd)(nil), doc: "The compaction ends; result is absent when it failed."},
		{value: (*AutoRetryStart)(nil), doc: "A retry after a transient provider failure is scheduled."},
		{value: (*AutoRetryEnd)(nil), doc: "The retry sequence ends."},
		{value: (*MCPServerStatus)(nil), doc: "How the start of one MCP server went."},
		{value: (*SkillsLoaded)(nil), doc: "base-context: the skills found, after the header (docs/skills.md)."},
		{value: (*SkillActivated)(nil), doc: "base-context: the model read a skill's SKILL.md (docs/skills.md)."},
	}
	messageTable = []variant{
		{value: (*UserMessage)(nil), doc: "A prompt."},
		{value: (*AssistantMessage)(nil), doc: "A model response."},
		{value: (*ToolResultMessage)(nil), doc: "A tool's result, for the model."},
		{value: (*BashExecutionMessage)(nil), doc: "A command the user ran directly."},
		{value: (*CustomMessage)(nil), doc: "An extension-defined message."},
		{value: (*BranchSummaryMessage)(nil), doc: "The summary of an abandoned branch of the session."},
		{value: (*CompactionSummaryMessage)(nil), doc: "Stands in for the messages a compaction summarised."},
	}
	contentTable = []variant{
		{value: (*TextContent)(nil), doc: "A text block."},
		{value: (*ThinkingContent)(nil), doc: "A thinking (reasoning) block."},
		{value: (*ImageContent)(nil), doc: "A base64 image."},
		{value: (*ToolCall)(nil), doc: "A tool call."},
	}
	updateTable = []variant{
		{tag: UpdateTextStart, doc: "A text block begins."},
		{tag: UpdateTextDelta, doc: "More text of the block."},
		{tag: UpdateTextEnd, doc: "The text block is complete."},
		{tag: UpdateThinkingStart, doc: "A thinking block begins."},
		{tag: UpdateThinkingDelta, doc: "More thinking of the block."},
		{tag: UpdateThinkingEnd, doc: "The thinking block is complete."},
		{tag: UpdateToolCallStart, doc: "A tool call block begins.", override: []ShapeMember{{
			Key: "toolCall", Kind: KindObject, Optional: true, Form: FormDeltas, FormRequired: true,
			Hook: "toolCallRef", Doc: "delta form: the id and name of the new call",
		}}},
		{tag: UpdateToolCallDelta, doc: "A piece of the tool call's JSON arguments."},
		{tag: UpdateToolCallEnd, doc: "The tool call is complete."},
	}
)

type description struct {
	events, messages, contents, updates *Union
	shapes                              map[reflect.Type]*Shape
	plans                               map[reflect.Type]*plan
	order                               []*Shape                // of shapes, as described
	unionOf                             map[reflect.Type]*Union // union types and variant types
	toolCallRef                         *Shape
}

var (
	describeOnce sync.Once
	desc         *description
)

func described() *description {
	describeOnce.Do(func() {
		d := &description{shapes: map[reflect.Type]*Shape{}, plans: map[reflect.Type]*plan{}, unionOf: map[reflect.Type]*Union{}}
		d.events = &Union{Name: "Event", Key: "type", Doc: "One line of the stream."}
		d.messages = &Union{Name: "Message", Key: "role", Doc: "A message of the conversation."}
		d.contents = &Union{Name: "Content", Key: "type", Doc: "A content block of a message."}
		d.updates = &Union{Name: "AssistantMessageEvent", Key: "type", Doc: "The change a message_update reports."}
		d.unionOf[reflect.TypeFor[Event]()] = d.events
		d.unionOf[reflect.TypeFor[Message]()] = d.messages
		d.unionOf[reflect.TypeFor[Content]()] = d.contents
		for _, t := range []struct {
			u     *Union
			table []variant
		}{{d.events, eventTable}, {d.messages, messageTable}, {d.contents, contentTable}} {
			for _, v := range t.table {
				d.unionOf[reflect.TypeOf(v.value).Elem()] = t.u
			}
		}
		// The {id, name} of a delta-form toolcall_start: those members of the ToolCall.
		toolCall := d.shape(reflect.TypeFor[ToolCall]())
		d.toolCallRef = &Shape{Name: "ToolCallRef", goType: toolCall.goType,
			Members: []ShapeMember{*toolCall.Member("id"), *toolCall.Member("name")}}
		for _, v := range eventTable {
			d.events.Variants = append(d.events.Variants, d.variant(v))
		}
		for _, v := range messageTable {
			d.messages.Variants = append(d.messages.Variants, d.variant(v))
		}
		for _, v := range contentTable {
			d.contents.Variants = append(d.contents.Variants, d.variant(v))
		}
		whole := d.shape(reflect.TypeFor[AssistantMessageEvent]())
		whole.Union = d.updates
		for _, v := range updateTable {
			d.updates.Variants = append(d.updates.Variants, d.view(whole, v))
		}
		desc = d
	})
	return desc
}

func (d *description) variant(v variant) *Shape {
	t := reflect.TypeOf(v.value).Elem()
	s := d.shape(t)
	s.Tag, s.Doc = tagOfType(t), v.doc
	s.Union = d.unionOf[s.goType]
	return s
}

// view is the variant of a union whose discriminator is a member of one struct: the members
// written for that value.
func (d *description) view(whole *Shape, v variant) *Shape {
	s := &Shape{Name: whole.Name + "." + v.tag, Tag: v.tag, Union: whole.Union, Doc: v.doc, goType: whole.goType}
	for _, m := range whole.Members {
		for _, o := range v.override {
			if o.Key == m.Key {
				o.index = m.index
				if o.Hook == "toolCallRef" {
					o.Shape = d.toolCallRef
				}
				m = o
			}
		}
		if m.When == nil || contains(m.When, v.tag) {
			m.When = nil
			s.Members = append(s.Members, m)
		}
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func splitTag(tag string) []string {
	if tag == "" {
		return nil
	}
	return strings.Split(tag, ",")
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// shape describes the struct type t, once.
func (d *description) shape(t reflect.Type) *Shape {
	if s := d.shapes[t]; s != nil {
		return s
	}
	s := &Shape{Name: t.Name(), goType: t}
	d.shapes[t] = s
	d.order = append(d.order, s)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			panic(fmt.Sprintf("codec: %s.%s has no json tag", t.Name(), f.Name))
		}
		m := ShapeMember{
			Key:      name,
			Optional: opts == "omitempty",
			When:     splitTag(f.Tag.Get("when")),
			Enum:     splitTag(f.Tag.Get("enum")),
			Default:  f.Tag.Get("default"),
			Const:    f.Tag.Get("const"),
			Hook:     f.Tag.Get("hook"),
			Doc:      f.Tag.Get("doc"),
			Nullable: f.Tag.Get("nullable") == "true",
			index:    i,
		}
		switch form := f.Tag.Get("form"); form {
		case "":
		case "full":
			m.Form, m.FormRequired = FormFull, true
		case "deltas":
			m.Form, m.FormRequired = FormDeltas, true
		case "deltas,optional":
			m.Form = FormDeltas
		default:
			panic(fmt.Sprintf("codec: %s.%s: unknown form %q", t.Name(), f.Name, form))
		}
		d.kind(&m, f.Type)
		switch k := f.Tag.Get("kind"); k {
		case "":
		case "number":
			m.Kind = KindNumber
		case "integer":
			m.Kind = KindInteger
		case "object":
			m.Kind = KindObject
		case "string|array":
			m.Kind, m.Elem = KindStringOrArray, KindObject
			m.Union = d.contents
		default:
			panic(fmt.Sprintf("codec: %s.%s: unknown kind %q", t.Name(), f.Name, k))
		}
		if b := f.Tag.Get("blocks"); b != "" {
			m.Allowed = splitTag(b)
		}
		s.Members = append(s.Members, m)
	}
	return s
}

// coding is how a member of a Go type is coded: its JSON kind in the description and its op
// in a plan (0: the type is only described, for a JSON Schema, and has no plan), with the
// struct type a nested plan codes. codingOf is the one place that maps Go types to both.
type coding struct {
	kind   Kind
	op     op
	nested reflect.Type
}

var (
	stringsType  = reflect.TypeFor[[]string]()
	messageType  = reflect.TypeFor[Message]()
	messagesType = reflect.TypeFor[[]Message]()
	contentsType = reflect.TypeFor[[]Content]()
	optIntType   = reflect.TypeFor[*int64]()
	optBoolType  = reflect.TypeFor[*bool]()
)

func codingOf(t reflect.Type) coding {
	switch t {
	case rawMessageType:
		return coding{kind: KindAny, op: opRaw}
	case stringsType:
		return coding{kind: KindArray, op: opStrings}
	case messageType:
		return coding{kind: KindObject, op: opMessage}
	case messagesType:
		return coding{kind: KindArray, op: opMessages}
	case contentsType:
		return coding{kind: KindArray, op: opContents}
	case optIntType:
		return coding{kind: KindInteger, op: opOptInt}
	case optBoolType:
		return coding{kind: KindBoolean, op: opOptBool}
	}
	switch t.Kind() {
	case reflect.String:
		return coding{kind: KindString, op: opString}
	case reflect.Int64:
		return coding{kind: KindInteger, op: opInt}
	case reflect.Int:
		return coding{kind: KindInteger}
	case reflect.Float64:
		return coding{kind: KindNumber, op: opFloat}
	case reflect.Bool:
		return coding{kind: KindBoolean, op: opBool}
	case reflect.Struct:
		return coding{kind: KindObject, op: opStruct, nested: t}
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return coding{kind: KindAny} // any: a value of no particular shape
		}
		return coding{kind: KindObject} // a union's interface
	case reflect.Slice:
		if e := t.Elem(); e.Kind() == reflect.Pointer && e.Elem().Kind() == reflect.Struct {
			return coding{kind: KindArray, op: opPointers, nested: e.Elem()}
		}
		return coding{kind: KindArray}
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Struct {
			return coding{kind: KindObject, op: opPointer, nested: t.Elem()}
		}
		c := codingOf(t.Elem()) // *float64, *string: optional or nullable scalars
		c.op = 0
		return c
	}
	panic("codec: no kind for " + t.String())
}

// kind sets the member's kind, elements, shape and union from its Go type.
func (d *description) kind(m *ShapeMember, t reflect.Type) {
	if t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Struct {
		t = t.Elem()
	}
	m.Kind = codingOf(t).kind
	switch {
	case m.Kind == KindArray:
		var elem ShapeMember
		d.kind(&elem, t.Elem())
		m.Elem, m.Shape, m.Union, m.Allowed = elem.Kind, elem.Shape, elem.Union, elem.Allowed
	case m.Kind != KindObject:
	case t.Kind() == reflect.Interface:
		if m.Union = d.unionOf[t]; m.Union == nil {
			panic("codec: no union for " + t.String())
		}
	default:
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if u := d.unionOf[t]; u != nil {
			// A variant type where one variant is allowed: described as the union, so
			// that its discriminator is checked too.
			m.Union = u
			m.Allowed = []string{tagOfType(t)}
			return
		}
		m.Shape = d.shape(t)
	}
}

// tagOfType is the discriminator value of a variant type.
func tagOfType(t reflect.Type) string {
	switch v := reflect.New(t).Interface().(type) {
	case Event:
		return v.EventType()
	case Message:
		return v.Role()
	case Content:
		return v.ContentType()
	}
	panic("codec: not a variant: " + t.String())
}

// Events is the union of event types (Header is the "session" event).
func Events() *Union { return described().events }

// Messages is the union of message roles.
func Messages() *Union { return described().messages }

// Contents is the union of content block types.
func Contents() *Union { return described().contents }

// Updates is the union of streaming update types, the assistantMessageEvent of a
// message_update. Its variants are views of AssistantMessageEvent: the members written for
// that type.
func Updates() *Union { return described().updates }

// ShapeOf returns the shape of v's type, a struct or a pointer to one of this package (for
// AssistantMessageEvent: all its members, for any update type), or nil.
func ShapeOf(v any) *Shape {
	t := reflect.TypeOf(v)
	if t == nil {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return described().shapes[t]
}

// ToolCallRefShape is the {id, name} of a delta-form toolcall_start.
func ToolCallRefShape() *Shape { return described().toolCallRef }
