package codec

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSONSchema returns the JSON Schema (draft 2020-12) of one line of the stream, of the full
// form or, with deltas, of the delta form, made from the description (describe.go).
//
// Objects are open (no additionalProperties: false), and a line, message, block or update of
// a type the description does not know is valid: within header version 3 the stream only
// gains optional members and new types, and consumers must ignore what they do not know.
// A member of the other form is excluded (`"partial": false` in the delta form).
func JSONSchema(deltas bool) []byte {
	form, title := "full form", "base-context stream: one line"
	if deltas {
		form, title = "delta form (--json-deltas)", "base-context stream: one line, delta form"
	}
	return streamSchema(deltas).document(title, "One line of the base-context JSON event stream (header version 3), "+form+
		". Generated from the codec package's description by `base-context schema`; docs/stream.md "+
		"describes the orders between lines. Objects are open: a consumer ignores members and types it does not know.",
		obj{{"$ref", "#/$defs/Event"}})
}

// SchemaDocument returns a JSON Schema document (draft 2020-12) that holds the stream's
// definitions (of the full form or, with deltas, of the delta form) and those of unions of
// objects outside the stream (rpc mode's commands and responses), whose variants are shapes
// of Describe, and of more shapes of Describe, with the shapes their members hold. The
// document's own schema is root's.
func SchemaDocument(title, description string, deltas bool, unions []*Union, shapes []*Shape, root Root) []byte {
	g := streamSchema(deltas)
	for _, u := range unions {
		g.union(u)
		for _, v := range u.Variants {
			g.nested(v)
		}
	}
	for _, s := range shapes {
		g.def(s)
		g.nested(s)
	}
	return g.document(title, description, g.root(root))
}

// Root is a document's own schema: an object is told apart by its member Key and must be of
// the definition of the case holding its value, or of Otherwise when none does. Without
// cases, it is Otherwise.
type Root struct {
	Key       string
	Cases     []RootCase
	Otherwise string
}

// RootCase names the definition of the objects whose Key is one of Tags; with Def "", such
// an object is not valid.
type RootCase struct {
	Tags []string
	Def  string
}

func (g *schemaGen) root(r Root) obj {
	if len(r.Cases) == 0 {
		return g.ref(r.Otherwise)
	}
	var all []string
	var cases []any
	for _, c := range r.Cases {
		all = append(all, c.Tags...)
		var then any = false
		if c.Def != "" {
			then = g.ref(c.Def)
		}
		cases = append(cases, obj{{"if", g.keyIn(r.Key, c.Tags)}, {"then", then}})
	}
	otherwise := obj{{"not", g.keyIn(r.Key, all)}}
	cases = append(cases, obj{{"if", otherwise}, {"then", g.ref(r.Otherwise)}})
	return obj{{"type", "object"}, {"allOf", cases}}
}

// keyIn is the schema of an object whose member key is one of tags.
func (g *schemaGen) keyIn(key string, tags []string) obj {
	return obj{{"properties", obj{{key, obj{{"enum", tags}}}}}, {"required", []string{key}}}
}

// streamSchema is a generator holding the definitions of the stream's unions and shapes.
func streamSchema(deltas bool) *schemaGen {
	d := described()
	g := &schemaGen{deltas: deltas, defs: obj{}}
	for _, u := range []*Union{d.events, d.messages, d.contents, d.updates} {
		g.union(u)
	}
	for _, s := range d.order {
		if s.Union == nil { // the shapes of nested objects (variants are defined with their union)
			g.def(s)
		}
	}
	g.def(d.toolCallRef)
	return g
}

// document is the schema document of the definitions, with the root's own schema.
func (g *schemaGen) document(title, description string, root obj) []byte {
	doc := append(obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"title", title},
		{"description", description},
	}, root...)
	out, err := json.MarshalIndent(append(doc, kv{"$defs", g.defs}), "", "  ")
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

// nested defines the shapes the members of s hold that are not defined yet.
func (g *schemaGen) nested(s *Shape) {
	for i := range s.Members {
		if n := s.Members[i].Shape; n != nil && !g.defined(n.Name) {
			g.def(n)
			g.nested(n)
		}
	}
}

func (g *schemaGen) defined(name string) bool {
	for _, d := range g.defs {
		if d.k == defName(name) {
			return true
		}
	}
	return false
}

type schemaGen struct {
	deltas bool
	defs   obj
}

func (g *schemaGen) ref(name string) obj { return obj{{"$ref", "#/$defs/" + defName(name)}} }

// defName is the definition's name of a shape: exported, though an object of another
// package may be described by an unexported type.
func defName(name string) string {
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// union defines u: an object with the discriminator, of the variant's shape when the
// discriminator names one, and any shape when it names none.
func (g *schemaGen) union(u *Union) {
	var cases []any
	for _, v := range u.Variants {
		cases = append(cases, obj{
			{"if", obj{{"properties", obj{{u.Key, obj{{"const", v.Tag}}}}}, {"required", []string{u.Key}}}},
			{"then", g.ref(v.Name)},
		})
	}
	defer func() {
		for _, v := range u.Variants {
			g.def(v)
		}
	}()
	doc, key := u.Doc+" Told apart by "+u.Key+"; one of an unknown "+u.Key+" is valid.", obj{{"type", "string"}}
	switch {
	case u.Closed && u.Otherwise != nil:
		doc = u.Doc + " Told apart by " + u.Key + "; one of an unknown " + u.Key + " is " + defName(u.Otherwise.Name) + "."
		cases = append(cases, obj{{"if", obj{{"not", g.keyIn(u.Key, u.Tags())}}}, {"then", g.ref(u.Otherwise.Name)}})
		defer g.def(u.Otherwise)
	case u.Closed:
		doc, key = u.Doc+" Told apart by "+u.Key+".", append(key, kv{"enum", u.Tags()})
	}
	g.defs = append(g.defs, kv{u.Name, obj{
		{"description", doc},
		{"type", "object"},
		{"required", []string{u.Key}},
		{"properties", obj{{u.Key, key}}},
		{"allOf", cases},
	}})
}

// def defines the shape s.
func (g *schemaGen) def(s *Shape) {
	var props obj
	var required []string
	if s.Union != nil && s.Member(s.Union.Key) == nil {
		props = append(props, kv{s.Union.Key, obj{{"const", s.Tag}}})
		required = append(required, s.Union.Key)
	}
	for i := range s.Members {
		m := &s.Members[i]
		switch {
		case m.Form == FormDeltas && !g.deltas, m.Form == FormFull && g.deltas:
			props = append(props, kv{m.Key, false})
			continue
		case m.Key == "type" && s.Union != nil && s.Union.Key == "type" && s.Tag != "":
			props = append(props, kv{m.Key, obj{{"const", s.Tag}}})
		default:
			props = append(props, kv{m.Key, g.member(m)})
		}
		if !m.Optional && m.When == nil || m.Form != FormBoth && m.FormRequired {
			required = append(required, m.Key)
		}
	}
	o := obj{}
	if s.Doc != "" {
		o = append(o, kv{"description", s.Doc})
	}
	o = append(o, kv{"type", "object"})
	if len(required) > 0 {
		o = append(o, kv{"required", required})
	}
	if len(props) > 0 {
		o = append(o, kv{"properties", props})
	}
	g.defs = append(g.defs, kv{defName(s.Name), o})
}

// member is the schema of one member's value.
func (g *schemaGen) member(m *ShapeMember) obj {
	var o obj
	switch m.Kind {
	case KindString:
		o = obj{{"type", "string"}}
		if m.Enum != nil {
			o = append(o, kv{"enum", m.Enum})
		}
	case KindInteger:
		o = obj{{"type", "integer"}}
	case KindNumber:
		o = obj{{"type", "number"}}
	case KindBoolean:
		o = obj{{"type", "boolean"}}
	case KindObject:
		o = g.object(m.Shape, m.Union, m.Allowed)
	case KindArray, KindStringOrArray:
		typ := any("array")
		if m.Kind == KindStringOrArray {
			typ = []string{"string", "array"}
		}
		o = obj{{"type", typ}}
		var items obj
		switch m.Elem {
		case KindString:
			items = obj{{"type", "string"}}
		case KindObject:
			items = g.object(m.Shape, m.Union, m.Allowed)
		}
		if items != nil {
			o = append(o, kv{"items", items})
		}
	default:
		o = obj{}
	}
	if m.Const != "" {
		o = append(o, kv{"const", json.RawMessage(m.Const)})
	}
	if m.Nullable {
		o = obj{{"anyOf", []any{o, obj{{"type", "null"}}}}}
	}
	if m.Doc != "" {
		o = append(obj{{"description", m.Doc}}, o...)
	}
	return o
}

// object is the schema of an object of shape s, or of union u restricted to allowed.
func (g *schemaGen) object(s *Shape, u *Union, allowed []string) obj {
	switch {
	case s != nil:
		return g.ref(s.Name)
	case u == nil:
		return obj{{"type", "object"}}
	case len(allowed) == 1:
		return g.ref(u.Variant(allowed[0]).Name)
	}
	o := g.ref(u.Name)
	var excluded []string
	for _, tag := range u.Tags() {
		if allowed != nil && !contains(allowed, tag) {
			excluded = append(excluded, tag)
		}
	}
	if excluded != nil {
		o = append(o, kv{"properties", obj{{u.Key, obj{{"not", obj{{"enum", excluded}}}}}}})
	}
	return o
}

// obj is a JSON object that keeps its members' order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
