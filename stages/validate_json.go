package stages

import (
	"bytes"

	"github.com/basecontext/base-context/codec"
)

// The validator's view of encoded JSON: the kind of a value, the fields a shape requires,
// and a path to name what is wrong. It runs on lines codec has already validated, so it
// only needs to look at first bytes and walk members.

// jsonKind is the kind of an encoded JSON value.
type jsonKind uint8

const (
	kindString jsonKind = iota + 1
	kindNumber
	kindBool
	kindNull
	kindObject
	kindArray
)

func kindOfValue(raw []byte) jsonKind {
	if len(raw) == 0 {
		return 0
	}
	switch raw[0] {
	case '"':
		return kindString
	case '{':
		return kindObject
	case '[':
		return kindArray
	case 't', 'f':
		return kindBool
	case 'n':
		return kindNull
	}
	return kindNumber
}

func (k jsonKind) String() string {
	switch k {
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	case kindBool:
		return "a boolean"
	case kindNull:
		return "null"
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	}
	return "nothing"
}

// want is what a field must hold.
type want uint8

const (
	wantAny want = iota
	wantString
	wantNumber
	wantInt // a number without fraction or exponent
	wantBool
	wantObject
	wantArray
	wantStringOrArray
)

func (w want) String() string {
	switch w {
	case wantString:
		return "a string"
	case wantNumber:
		return "a number"
	case wantInt:
		return "an integer"
	case wantBool:
		return "a boolean"
	case wantObject:
		return "an object"
	case wantArray:
		return "an array"
	case wantStringOrArray:
		return "a string or an array"
	}
	return "a value"
}

func (w want) accepts(raw []byte) bool {
	k := kindOfValue(raw)
	switch w {
	case wantAny:
		return k != 0
	case wantString:
		return k == kindString
	case wantNumber:
		return k == kindNumber
	case wantInt:
		return k == kindNumber && !bytes.ContainsAny(raw, ".eE")
	case wantBool:
		return k == kindBool
	case wantObject:
		return k == kindObject
	case wantArray:
		return k == kindArray
	case wantStringOrArray:
		return k == kindString || k == kindArray
	}
	return false
}

// field is one member a shape expects.
type field struct {
	key      string
	want     want
	optional bool
	oneOf    []string // for strings: the values allowed
	konst    string   // the encoded value it must have, "" for any
}

// shape is the fields of one kind of object, with their keys listed once for FindEach.
type shape struct {
	fields []field
	keys   []string
}

// shapeFrom is the validator's view of a shape of codec's description: every member that
// some line may lack is optional here (the rules that say when it is required, by form or
// update type, are the validator's code).
func shapeFrom(cs *codec.Shape) *shape {
	s := &shape{}
	for _, m := range cs.Members {
		s.fields = append(s.fields, field{key: m.Key, want: wantOf(m.Kind), optional: m.MayBeAbsent(), oneOf: m.Enum, konst: m.Const})
		s.keys = append(s.keys, m.Key)
	}
	if len(s.fields) > maxShapeFields {
		panic("stages: shape " + cs.Name + " has more members than maxShapeFields")
	}
	return s
}

func wantOf(k codec.Kind) want {
	switch k {
	case codec.KindString:
		return wantString
	case codec.KindInteger:
		return wantInt
	case codec.KindNumber:
		return wantNumber
	case codec.KindBoolean:
		return wantBool
	case codec.KindObject:
		return wantObject
	case codec.KindArray:
		return wantArray
	case codec.KindStringOrArray:
		return wantStringOrArray
	}
	return wantAny
}

// maxShapeFields bounds the fields of a shape, so lookups fit in a fixed array.
const maxShapeFields = 12

// strView returns the string value of member m of obj, "" when it is not a string, without
// copying: valid only while obj is, so callers that keep it clone it.
func strView(obj []byte, m codec.Member) string { return m.View(obj) }

func oneOf(s string, allowed []string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}
