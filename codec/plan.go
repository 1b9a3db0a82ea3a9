package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/tidwall/gjson"
)

// A plan is the description of one struct type compiled for coding: per member, its key as
// written, the field's offset and an op. Plans are made once, at the first use of any
// (encoders.go); encoding then reads fields through their offsets, without reflection, so a
// planned encoder costs about what a hand-written one does.
type plan struct {
	shape *Shape
	head  string // `{"type":"session"` for a variant, `{` otherwise
	what  string // names the object in decoding errors: "assistant message", "text block"
	// discriminator is the offset of the string member whose value selects the members
	// tagged when (AssistantMessageEvent.Type); hasWhen says there is one.
	discriminator uintptr
	hasWhen       bool
	tags          []string // the discriminator's values, their bits in memberPlan.when
	members       []memberPlan
}

type op uint8

const (
	opString op = iota + 1
	opInt
	opFloat
	opBool
	opOptInt  // *int64
	opOptBool // *bool
	opRaw     // json.RawMessage
	opStrings // []string
	opStruct  // a struct value with a plan
	opPointer // a pointer to a struct with a plan
	opPointers
	opMessage  // Message
	opMessages // []Message
	opContents // []Content
	opHook
)

type memberPlan struct {
	m      *ShapeMember
	key    string // `,"key":`
	op     op
	offset uintptr
	omit   bool   // omitempty: left out when empty
	when   uint64 // with plan.hasWhen: the bits of the discriminator values it is written for; 0: all
	// alt writes the member instead for the discriminator values of altWhen (the delta-form
	// toolcall_start's toolCall, a union table override).
	alt     *memberPlan
	altWhen uint64
	def     string
	nested  *plan
	hook    *hook
}

// A hook codes an irregular member by hand. What the member is stays declared in the
// description, beside the hook's name: kind:"string|array" blocks:"text,image" for a user
// message's content, kind:"object" for a tool call's arguments, the union table's override
// (the ToolCallRef shape, delta form only) for toolcall_start's toolCall.
type hook struct {
	// encode appends the member's value to dst, or reports false to leave the member out.
	encode func(dst []byte, obj unsafe.Pointer, mp *memberPlan) ([]byte, bool)
	// decode reads the member's value x into the struct at obj; finish, when set, runs after
	// every member was read (for a default).
	decode func(f *Fields, key string, x gjson.Result, obj unsafe.Pointer, mp *memberPlan)
	finish func(obj unsafe.Pointer)
}

// hooks are the hooks by name. They are set in init, not by their declaration: they decode
// content blocks and messages with the plans, which are made with the hooks, so a
// declaration would be an initialisation cycle.
var hooks map[string]*hook

func init() {
	hooks = map[string]*hook{
		// A user message's content is its text as a string, or its blocks when it has any.
		"userContent": {encode: func(dst []byte, obj unsafe.Pointer, _ *memberPlan) ([]byte, bool) {
			m := (*UserMessage)(obj)
			if m.Blocks != nil {
				return AppendContents(dst, m.Blocks), true
			}
			return AppendString(dst, m.Text), true
		}, decode: func(f *Fields, key string, x gjson.Result, obj unsafe.Pointer, _ *memberPlan) {
			m := (*UserMessage)(obj)
			if x.Type == gjson.String {
				m.Text = f.Str(key, x)
			} else {
				m.Blocks = f.Contents(key, x)
			}
		}},
		// A tool call's arguments are an object; while the call streams, the fragments so far,
		// closed leniently (PartialObject).
		"toolCallArguments": {encode: func(dst []byte, obj unsafe.Pointer, _ *memberPlan) ([]byte, bool) {
			c := (*ToolCall)(obj)
			if c.Arguments != nil {
				return append(dst, c.Arguments...), true
			}
			return AppendPartialObject(dst, UnsafeString(c.ArgsSoFar)), true
		}, decode: func(_ *Fields, _ string, x gjson.Result, obj unsafe.Pointer, _ *memberPlan) {
			(*ToolCall)(obj).Arguments = decodeCompact(x.Raw) // compacted: they may be re-encoded in a line
		}, finish: func(obj unsafe.Pointer) {
			if c := (*ToolCall)(obj); c.Arguments == nil {
				c.Arguments = json.RawMessage("{}")
			}
		}},
		// The delta form (no partial snapshot) names the new call of a toolcall_start: the
		// ToolCallRef members of the call (mp.nested).
		"toolCallRef": {encode: func(dst []byte, obj unsafe.Pointer, mp *memberPlan) ([]byte, bool) {
			e := (*AssistantMessageEvent)(obj)
			if e.Partial != nil || e.ToolCall == nil {
				return dst, false
			}
			return mp.nested.encode(dst, unsafe.Pointer(e.ToolCall)), true
		}, decode: func(f *Fields, key string, x gjson.Result, obj unsafe.Pointer, mp *memberPlan) {
			if !x.IsObject() {
				f.fail(key, "object", x)
				return
			}
			call := &ToolCall{}
			mp.nested.decode(f, x, unsafe.Pointer(call), key+".")
			(*AssistantMessageEvent)(obj).ToolCall = call
		}},
	}
}

// planFor returns the plan of T, made once.
func planFor[T any]() *plan { return described().plan(reflect.TypeFor[T]()) }

func (d *description) plan(t reflect.Type) *plan {
	if p := d.plans[t]; p != nil {
		return p
	}
	s := d.shapes[t]
	if s == nil {
		s = d.shape(t)
	}
	p := &plan{}
	d.plans[t] = p
	d.fillPlan(p, s, t)
	return p
}

// fillPlan compiles s, a shape of the struct type t, into p.
func (d *description) fillPlan(p *plan, s *Shape, t reflect.Type) {
	p.shape, p.head, p.what = s, "{", s.Name
	if s.Union != nil && s.Tag == "" {
		// The discriminator's values, from the union table: the same strings as the
		// constants (UpdateTextDelta...) the agent sets, so that comparing them is quick.
		p.tags = s.Union.Tags()
	}
	if s.Union != nil && s.Tag != "" {
		p.head = `{"` + s.Union.Key + `":` + string(AppendString(nil, s.Tag))
		switch s.Union {
		case d.messages:
			p.what = s.Tag + " message"
		case d.contents:
			p.what = s.Tag + " block"
		case d.events:
			p.what = s.Tag + " event"
		}
	}
	if s.goType == reflect.TypeFor[Header]() {
		p.what = "session header"
	}
	for i := range s.Members {
		m := &s.Members[i]
		f := t.Field(m.index)
		mp := memberPlan{m: m, key: `,"` + m.Key + `":`, offset: f.Offset, omit: m.Optional, def: m.Default}
		if m.When != nil {
			p.hasWhen = true
			for _, tag := range m.When {
				mp.when |= 1 << p.tagBit(tag)
			}
		}
		if s.Union != nil && m.Key == s.Union.Key {
			p.discriminator = f.Offset
		}
		if m.Hook != "" {
			mp.op, mp.hook = opHook, hooks[m.Hook]
		} else if c := codingOf(f.Type); c.op != 0 {
			mp.op = c.op
			if c.nested != nil {
				mp.nested = d.plan(c.nested)
			}
		} else {
			panic("codec: no plan for " + t.Name() + "." + f.Name)
		}
		if mp.op == opHook && mp.hook == nil {
			panic("codec: no hook " + m.Hook)
		}
		p.members = append(p.members, mp)
	}
	if s.Union != nil && s.Tag == "" { // a struct whose member is the discriminator: its views' overrides
		for _, v := range s.Union.Variants {
			for i := range v.Members {
				m := &v.Members[i]
				if m.Hook != "" && s.Member(m.Key).Hook != m.Hook {
					o := &memberPlan{m: m, key: `,"` + m.Key + `":`, op: opHook, hook: hooks[m.Hook]}
					if m.Shape != nil {
						o.nested = &plan{}
						d.fillPlan(o.nested, m.Shape, m.Shape.goType)
					}
					for j := range p.members {
						if mp := &p.members[j]; mp.m.Key == m.Key {
							mp.alt, mp.altWhen = o, mp.altWhen|1<<p.tagBit(v.Tag)
						}
					}
				}
			}
		}
	}
}

// tagBit returns the bit of a discriminator value in memberPlan.when.
func (p *plan) tagBit(tag string) int {
	for i, t := range p.tags {
		if t == tag {
			return i
		}
	}
	p.tags = append(p.tags, tag)
	if len(p.tags) > 64 {
		panic("codec: too many discriminator values in when tags of " + p.shape.Name)
	}
	return len(p.tags) - 1
}

// encode appends the JSON object of the struct at obj. It is one loop with the ops inline:
// it runs per provider chunk, and a call per member would cost a third more on small lines.
func (p *plan) encode(dst []byte, obj unsafe.Pointer) []byte {
	dst = append(dst, p.head...)
	skip := 1 // of the key's comma, until a member is written
	if len(p.head) > 1 {
		skip = 0
	}
	var bit uint64
	if p.hasWhen {
		tag := *(*string)(unsafe.Add(obj, p.discriminator))
		for i, t := range p.tags {
			if t == tag {
				bit = 1 << i
				break
			}
		}
	}
	for i := range p.members {
		mp := &p.members[i]
		if mp.when != 0 && mp.when&bit == 0 {
			if mp.altWhen&bit == 0 {
				continue
			}
			mp = mp.alt
		}
		f := unsafe.Add(obj, mp.offset)
		switch mp.op {
		case opString:
			s := *(*string)(f)
			if mp.omit && s == "" {
				continue
			}
			dst = AppendString(append(dst, mp.key[skip:]...), s)
		case opInt:
			n := *(*int64)(f)
			if mp.omit && n == 0 {
				continue
			}
			dst = AppendInt(append(dst, mp.key[skip:]...), n)
		case opFloat:
			dst = AppendFloat(append(dst, mp.key[skip:]...), *(*float64)(f))
		case opBool:
			b := *(*bool)(f)
			if mp.omit && !b {
				continue
			}
			dst = AppendBool(append(dst, mp.key[skip:]...), b)
		case opOptInt:
			n := *(**int64)(f)
			if n == nil {
				continue
			}
			dst = AppendInt(append(dst, mp.key[skip:]...), *n)
		case opOptBool:
			b := *(**bool)(f)
			if b == nil {
				continue
			}
			dst = AppendBool(append(dst, mp.key[skip:]...), *b)
		case opRaw:
			raw := *(*json.RawMessage)(f)
			if mp.omit && len(raw) == 0 {
				continue
			}
			dst = AppendRaw(append(dst, mp.key[skip:]...), raw, mp.def)
		case opStrings:
			ss := *(*[]string)(f)
			if mp.omit && len(ss) == 0 {
				continue
			}
			dst = appendStrings(append(dst, mp.key[skip:]...), ss)
		case opStruct:
			dst = mp.nested.encode(append(dst, mp.key[skip:]...), f)
		case opPointer:
			ptr := *(*unsafe.Pointer)(f)
			if mp.omit && ptr == nil {
				continue
			}
			dst = mp.nested.encode(append(dst, mp.key[skip:]...), ptr)
		case opPointers:
			dst = append(append(dst, mp.key[skip:]...), '[')
			for i, ptr := range *(*[]unsafe.Pointer)(f) {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = mp.nested.encode(dst, ptr)
			}
			dst = append(dst, ']')
		case opMessage:
			dst = (*(*Message)(f)).AppendJSON(append(dst, mp.key[skip:]...))
		case opMessages:
			dst = AppendMessages(append(dst, mp.key[skip:]...), *(*[]Message)(f))
		case opContents:
			dst = AppendContents(append(dst, mp.key[skip:]...), *(*[]Content)(f))
		case opHook:
			n := len(dst)
			var ok bool
			if dst, ok = mp.hook.encode(append(dst, mp.key[skip:]...), obj, mp); !ok {
				dst = dst[:n]
				continue
			}
		default:
			panic("codec: bad op")
		}
		skip = 0
	}
	return append(dst, '}')
}

func variantPlans(table []variant) map[string]*plan {
	d := described()
	plans := map[string]*plan{}
	for _, v := range table {
		p := d.plan(reflect.TypeOf(v.value).Elem())
		plans[p.shape.Tag] = p
	}
	return plans
}

// decodeNew decodes the members of an object (objectMembers) into a new value of the
// plan's type, a pointer.
func (p *plan) decodeNew(ms []member, mode decodeMode) (any, error) {
	obj := reflect.New(p.shape.goType)
	f := Fields{What: p.what, mode: mode}
	p.decodeMembers(&f, ms, obj.UnsafePointer(), "")
	return obj.Interface(), f.Err
}

// decode reads the members of the object v into the struct at obj, keeping the first error
// in f. Members it does not know are ignored, absent ones keep their zero value (content
// lists: empty), null counts as absent; prefix names nested members in errors ("usage.").
func (p *plan) decode(f *Fields, v gjson.Result, obj unsafe.Pointer, prefix string) {
	var store [8]member
	p.decodeMembers(f, objectMembers(v, store[:0], f.mode), obj, prefix)
}

// decodeMembers is decode of an object's members (objectMembers).
func (p *plan) decodeMembers(f *Fields, ms []member, obj unsafe.Pointer, prefix string) {
	for i := range p.members {
		if mp := &p.members[i]; mp.op == opContents {
			*(*[]Content)(unsafe.Add(obj, mp.offset)) = []Content{}
		}
	}
	var bit uint64 // of the discriminator's value, for the members it writes otherwise (alt)
	if p.hasWhen {
		tag := get(ms, p.shape.Union.Key).Str
		for i, t := range p.tags {
			if t == tag {
				bit = 1 << i
			}
		}
	}
	decode := func(mp *memberPlan, key string, x gjson.Result) {
		if mp.altWhen&bit != 0 {
			mp = mp.alt
		}
		mp.decode(f, key, x, obj)
	}
	next := 0 // members mostly come in the order we write them: try the next one first
	for _, m := range ms {
		k, x := m.k, m.x
		if next < len(p.members) && p.members[next].m.Key == k.Str {
			decode(&p.members[next], prefix+k.Str, x)
			next++
		} else {
			for i := range p.members {
				if mp := &p.members[i]; mp.m.Key == k.Str {
					decode(mp, prefix+k.Str, x)
					next = i + 1
					break
				}
			}
		}
		if f.Err != nil {
			break
		}
	}
	for i := range p.members {
		if mp := &p.members[i]; mp.op == opHook && mp.hook.finish != nil {
			mp.hook.finish(obj)
		}
	}
}

// decode reads the member's value x into the struct at obj; key names it in errors.
func (mp *memberPlan) decode(f *Fields, key string, x gjson.Result, obj unsafe.Pointer) {
	ptr := unsafe.Add(obj, mp.offset)
	switch mp.op {
	case opString:
		*(*string)(ptr) = f.Str(key, x)
	case opInt:
		*(*int64)(ptr) = f.Int(key, x)
	case opFloat:
		*(*float64)(ptr) = f.Float(key, x)
	case opBool:
		*(*bool)(ptr) = f.Bool(key, x)
	case opOptInt:
		*(**int64)(ptr) = f.OptInt(key, x)
	case opOptBool:
		*(**bool)(ptr) = f.OptBool(key, x)
	case opRaw:
		*(*json.RawMessage)(ptr) = f.Raw(x)
	case opContents:
		*(*[]Content)(ptr) = f.Contents(key, x)
	case opHook:
		mp.hook.decode(f, key, x, obj, mp)
	case opStruct:
		if x.Type == gjson.Null {
			return
		}
		if !x.IsObject() {
			f.fail(key, "object", x)
			return
		}
		mp.nested.decode(f, x, ptr, key+".")
	case opStrings:
		ss := []string{}
		if f.eachElem(key, x, func(key string, elem gjson.Result) { ss = append(ss, f.Str(key, elem)) }) {
			*(*[]string)(ptr) = ss
		}
	case opPointer:
		if x.Type != gjson.Null {
			*(*unsafe.Pointer)(ptr) = mp.nested.decodeMember(f, key, x)
		}
	case opPointers:
		elem := mp.nested.shape.goType
		list := reflect.MakeSlice(reflect.SliceOf(reflect.PointerTo(elem)), 0, 4)
		if f.eachElem(key, x, func(key string, x gjson.Result) {
			list = reflect.Append(list, reflect.NewAt(elem, mp.nested.decodeMember(f, key, x)))
		}) {
			reflect.NewAt(list.Type(), ptr).Elem().Set(list)
		}
	case opMessage:
		if x.Type != gjson.Null {
			*(*Message)(ptr) = f.message(key, x)
		}
	case opMessages:
		ms := []Message{}
		if f.eachElem(key, x, func(key string, elem gjson.Result) { ms = append(ms, f.message(key, elem)) }) {
			*(*[]Message)(ptr) = ms
		}
	default:
		panic("codec: bad op")
	}
}

// eachElem calls fn for the elements of the array x, the member key, with their names
// ("key[2]"), until an error. It reports whether x was an array; null counts as absent.
func (f *Fields) eachElem(key string, x gjson.Result, fn func(key string, elem gjson.Result)) bool {
	if x.Type == gjson.Null {
		return false
	}
	if !x.IsArray() {
		f.fail(key, "array", x)
		return false
	}
	i := 0
	eachElem(x, f.mode, func(elem gjson.Result) bool {
		fn(fmt.Sprintf("%s[%d]", key, i), elem)
		i++
		return f.Err == nil
	})
	return true
}

// message decodes the member key, a message.
func (f *Fields) message(key string, x gjson.Result) Message {
	if !x.IsObject() {
		f.fail(key, "object", x)
		return nil
	}
	m, err := decodeMessage(x, f.mode)
	if err != nil && f.Err == nil {
		f.Err = fmt.Errorf("codec: %s: field %q: %w", f.What, key, err)
	}
	return m
}

// decodeMember decodes the member key, an object of the plan's type, into a new value. A
// variant of a union (a toolCall block, an assistant message) must have its discriminator.
func (p *plan) decodeMember(f *Fields, key string, x gjson.Result) unsafe.Pointer {
	if !x.IsObject() {
		f.fail(key, "object", x)
		return nil
	}
	s := p.shape
	if s.Union == nil || s.Tag == "" {
		obj := reflect.New(s.goType).UnsafePointer()
		p.decode(f, x, obj, key+".")
		return obj
	}
	if tag := lastMember(x, s.Union.Key); tag.Type != gjson.String || tag.Str != s.Tag {
		f.fail(key+"."+s.Union.Key, strconv.Quote(s.Tag), tag)
		return nil
	}
	var store [8]member
	v, err := p.decodeNew(objectMembers(x, store[:0], f.mode), f.mode)
	if err != nil && f.Err == nil {
		f.Err = fmt.Errorf("codec: %s: field %q: %w", f.What, key, err)
	}
	return reflect.ValueOf(v).UnsafePointer()
}
