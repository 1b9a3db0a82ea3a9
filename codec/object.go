package codec

import (
	"fmt"
	"maps"
	"reflect"
	"sync"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Objects outside the stream (rpc mode's commands and responses) are described with the
// same tags as the stream's types: Describe makes the shape of such a struct type, Decode
// reads an object by it, and SchemaDocument puts their JSON Schema beside the stream's.

// objects describes the struct types of other packages. It starts from the stream's
// description, so that a member of a stream type (a message, an image block) is described
// as the stream describes it; its own shapes stay out of the stream's schema.
var objects struct {
	sync.Mutex
	d *description
}

func objectDescription() *description {
	if objects.d == nil {
		d := described()
		objects.d = &description{shapes: maps.Clone(d.shapes), plans: maps.Clone(d.plans), unionOf: d.unionOf,
			events: d.events, messages: d.messages, contents: d.contents, updates: d.updates, toolCallRef: d.toolCallRef}
	}
	return objects.d
}

// Describe returns the shape of v's type, a struct or a pointer to one, described by its
// tags as the stream's types are (describe.go). It panics on a type the tags cannot describe.
func Describe(v any) *Shape {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		panic("codec: Describe of " + t.String() + ", not a struct")
	}
	objects.Lock()
	defer objects.Unlock()
	return objectDescription().shape(t)
}

// Problem is what a MemberError found wrong.
type Problem uint8

const (
	ProblemMissing Problem = iota + 1 // a required member is absent
	ProblemKind                       // the value is not of the member's kind (null included)
	ProblemEnum                       // a string outside the member's enum
	ProblemVariant                    // an element is a variant the member does not allow
	ProblemInvalid                    // the value is of its kind, but what it holds is not valid
)

// A MemberError is the first member of an object that Decode found wrong.
type MemberError struct {
	Member  *ShapeMember
	Problem Problem
	Value   gjson.Result // the member's value (absent: ProblemMissing); the element's for ProblemVariant
	Index   int          // ProblemVariant: the element's index
	Tag     string       // ProblemVariant: the element's discriminator value
	Err     error        // ProblemInvalid: what the decoder found
}

func (e *MemberError) Error() string {
	key := e.Member.Key
	switch e.Problem {
	case ProblemMissing:
		return fmt.Sprintf("missing %q", key)
	case ProblemKind:
		return fmt.Sprintf("%q: expected %s, got %s", key, e.Member.Kind, decodeTypeName(e.Value))
	case ProblemEnum:
		return fmt.Sprintf("%q: %q is not one of %v", key, e.Value.Str, e.Member.Enum)
	case ProblemVariant:
		return fmt.Sprintf("%q[%d]: %q is not one of %v", key, e.Index, e.Tag, e.Member.Allowed)
	}
	return fmt.Sprintf("%q: %v", key, e.Err)
}

func (e *MemberError) Unwrap() error { return e.Err }

// String names the kind as the JSON Schema does.
func (k Kind) String() string {
	return [...]string{"any value", "string", "integer", "number", "boolean", "object", "array", "string or array"}[k]
}

// Holds says whether v is a value of the kind.
func (k Kind) Holds(v gjson.Result) bool {
	switch k {
	case KindString:
		return v.Type == gjson.String
	case KindInteger:
		return v.Type == gjson.Number && v.Num == float64(int64(v.Num))
	case KindNumber:
		return v.Type == gjson.Number
	case KindBoolean:
		return v.IsBool()
	case KindObject:
		return v.IsObject()
	case KindArray:
		return v.IsArray()
	case KindStringOrArray:
		return v.Type == gjson.String || v.IsArray()
	}
	return v.Exists()
}

// Decode reads the JSON object v into the struct dst points to, a type Describe describes.
// Unlike the stream's decoders, which take what a writer left out as empty, it holds the
// object to its description, member by member in their order: a required member (no
// omitempty) must be there, not null; a value must be of its member's kind, a string one of
// its enum, and the blocks of a content list of the types it allows; null stands for an
// optional member's absence, and is the value of a nullable one. What the values hold is
// read by the stream's decoders (plan.go). The first problem is returned as a *MemberError.
// Members it does not know are ignored.
func Decode(v gjson.Result, dst any) error {
	rv := reflect.ValueOf(dst)
	objects.Lock()
	p := objectDescription().plan(rv.Type().Elem())
	objects.Unlock()
	obj := rv.UnsafePointer()
	for i := range p.members {
		mp := &p.members[i]
		m := mp.m
		x := lastMember(v, m.Key)
		switch {
		case !x.Exists() && m.MayBeAbsent(), x.Exists() && x.Type == gjson.Null && (m.MayBeAbsent() || m.Nullable):
			continue
		case !x.Exists():
			return &MemberError{Member: m, Problem: ProblemMissing}
		case !m.Kind.Holds(x):
			return &MemberError{Member: m, Problem: ProblemKind, Value: x}
		case m.Enum != nil && !contains(m.Enum, x.Str):
			return &MemberError{Member: m, Problem: ProblemEnum, Value: x}
		}
		f := Fields{What: p.what}
		mp.decode(&f, m.Key, x, obj)
		if f.Err != nil {
			// The decoder's error names the object and member; the MemberError does.
			return &MemberError{Member: m, Problem: ProblemInvalid, Value: x, Err: unwrapOnce(f.Err)}
		}
		if mp.op == opContents && m.Allowed != nil {
			for j, c := range *(*[]Content)(unsafe.Add(obj, mp.offset)) {
				if !contains(m.Allowed, c.ContentType()) {
					return &MemberError{Member: m, Problem: ProblemVariant, Value: x.Get(fmt.Sprint(j)), Index: j, Tag: c.ContentType()}
				}
			}
		}
	}
	return nil
}

func unwrapOnce(err error) error {
	if inner, ok := err.(interface{ Unwrap() error }); ok && inner.Unwrap() != nil {
		return inner.Unwrap()
	}
	return err
}
