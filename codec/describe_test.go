package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/tidwall/gjson"
)

// filled returns a value of type t with every member set (non-zero), so that every member
// the description lists is written. Interfaces get the first variant their union allows.
func filled(t reflect.Type, tag string) reflect.Value {
	switch t {
	case rawMessageType:
		return reflect.ValueOf(json.RawMessage(`{"raw":1}`))
	}
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf("s").Convert(t)
	case reflect.Int64:
		return reflect.ValueOf(int64(7))
	case reflect.Float64:
		return reflect.ValueOf(1.5)
	case reflect.Bool:
		return reflect.ValueOf(true)
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		p.Elem().Set(filled(t.Elem(), tag))
		return p
	case reflect.Slice:
		s := reflect.MakeSlice(t, 1, 1)
		s.Index(0).Set(filled(t.Elem(), ""))
		return s
	case reflect.Interface:
		u := described().unionOf[t]
		return filled(reflect.PointerTo(u.Variants[0].goType), "")
	case reflect.Struct:
		v := reflect.New(t).Elem()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			v.Field(i).Set(filled(f.Type, ""))
		}
		if t == reflect.TypeFor[UserMessage]() {
			v.FieldByName("Text").SetString("") // the blocks are the content
		}
		if t == reflect.TypeFor[AssistantMessageEvent]() {
			if tag == "" { // inside a message_update: a type that writes all it holds
				tag = UpdateToolCallEnd
				v.FieldByName("Delta").SetString("")
				v.FieldByName("Content").SetString("")
			}
			v.FieldByName("Type").SetString(tag)
			v.FieldByName("Partial").SetZero() // the delta form: toolcall_start writes {id, name}
			v.FieldByName("ToolCall").Set(filled(reflect.TypeFor[*ToolCall](), ""))
		}
		return v
	}
	panic("filled: " + t.String())
}

// keysOf returns the keys of the encoded object in order.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// expectedKeys is the keys the description says a filled value of s writes, in order.
func expectedKeys(s *Shape) []string {
	var keys []string
	if s.Union != nil && s.Member(s.Union.Key) == nil {
		keys = append(keys, s.Union.Key)
	}
	for _, m := range s.Members {
		if m.Form == FormFull && s.Union == Updates() {
			continue // filled() writes the delta form of updates
		}
		keys = append(keys, m.Key)
	}
	return keys
}

// The description lists every member the encoders write, in their order, with the
// discriminator first: checked on a value of every event, message, block and update type,
// and of every nested shape, with every member set.
func TestDescriptionAgreesWithEncoders(t *testing.T) {
	checked := 0
	for _, u := range []*Union{Events(), Messages(), Contents(), Updates()} {
		for _, s := range u.Variants {
			v := filled(s.goType, s.Tag).Addr().Interface().(Encoder)
			got, want := keysOf(t, v.AppendJSON(nil)), expectedKeys(s)
			if !slices.Equal(got, want) {
				t.Errorf("%s: encoder writes %v, description says %v", s.Name, got, want)
			}
			checked++
		}
	}
	for _, s := range described().order {
		if s.Union != nil || s == ToolCallRefShape() {
			continue
		}
		enc, ok := filled(s.goType, "").Addr().Interface().(Encoder)
		if !ok {
			continue // written by its container, checked through it
		}
		if got, want := keysOf(t, enc.AppendJSON(nil)), expectedKeys(s); !slices.Equal(got, want) {
			t.Errorf("%s: encoder writes %v, description says %v", s.Name, got, want)
		}
		checked++
	}
	if checked < 16+7+4+9 {
		t.Errorf("checked %d shapes", checked)
	}
}

// Optional members are left out when empty, and only those: a zero value of every type
// writes exactly the members the description requires.
func TestOptionalMembersAreLeftOutEmpty(t *testing.T) {
	for _, u := range []*Union{Events(), Messages(), Contents()} {
		for _, s := range u.Variants {
			v := reflect.New(s.goType)
			zeroButNested(v.Elem())
			got := keysOf(t, v.Interface().(Encoder).AppendJSON(nil))
			want := []string{u.Key}
			for _, m := range s.Members {
				if !m.MayBeAbsent() {
					want = append(want, m.Key)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: empty value writes %v, description requires %v", s.Name, got, want)
			}
		}
	}
}

// zeroButNested sets the members the encoders need to be non-nil (a message, an update).
func zeroButNested(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Interface:
			f.Set(reflect.ValueOf(&UserMessage{}))
		case f.Type() == reflect.TypeFor[*AssistantMessageEvent]():
			f.Set(reflect.ValueOf(&AssistantMessageEvent{Type: UpdateTextStart}))
		}
	}
}

// Every type name the package defines has its row in the union tables, and every row a name.
func TestUnionTablesAreComplete(t *testing.T) {
	for _, c := range []struct {
		u    *Union
		want []string
	}{
		{Events(), []string{TypeSession, TypeAgentStart, TypeAgentEnd, TypeTurnStart, TypeTurnEnd, TypeMessageStart,
			TypeMessageUpdate, TypeMessageEnd, TypeToolExecutionStart, TypeToolExecutionUpdate, TypeToolExecutionEnd,
			TypeSessionActionUpdate, TypeCompactionStart, TypeCompactionEnd, TypeAutoRetryStart, TypeAutoRetryEnd, TypeMCPServerStatus,
			TypeSkillsLoaded, TypeSkillActivated}},
		{Updates(), []string{UpdateTextStart, UpdateTextDelta, UpdateTextEnd, UpdateThinkingStart, UpdateThinkingDelta,
			UpdateThinkingEnd, UpdateToolCallStart, UpdateToolCallDelta, UpdateToolCallEnd}},
		{Messages(), []string{"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"}},
		{Contents(), []string{"text", "thinking", "image", "toolCall"}},
	} {
		if got := c.u.Tags(); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.u.Name, got, c.want)
		}
	}
	stop := Messages().Variant("assistant").Member("stopReason").Enum
	if want := []string{StopReasonStop, StopReasonLength, StopReasonToolUse, StopReasonError, StopReasonAborted}; !slices.Equal(stop, want) {
		t.Errorf("stop reasons %v, want %v", stop, want)
	}
}

func ExampleShapeOf() {
	for _, m := range ShapeOf(&Usage{}).Members {
		fmt.Print(m.Key, " ")
	}
	// Output: input output cacheRead cacheWrite totalTokens cost
}

// Every member of every event, message and block type decodes back to what was encoded: a
// value with every member set goes through AppendJSON, ParseEvent/ParseMessage/ParseContent
// and AppendJSON.
func TestFilledValuesRoundTrip(t *testing.T) {
	for _, u := range []*Union{Events(), Messages(), Contents()} {
		for _, s := range u.Variants {
			v := filled(s.goType, s.Tag).Addr().Interface().(Encoder)
			enc := v.AppendJSON(nil)
			var back Encoder
			var err error
			switch u {
			case Events():
				back, err = ParseEvent(enc)
			case Messages():
				back, err = ParseMessage(enc)
			default:
				back, err = ParseContent(enc)
			}
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			if again := back.AppendJSON(nil); !bytes.Equal(again, enc) {
				t.Errorf("%s:\n got %s\nwant %s", s.Name, again, enc)
			}
			if !reflect.DeepEqual(back, v) {
				t.Errorf("%s: decoded %#v, want %#v", s.Name, back, v)
			}
		}
	}
}

// probe is a type declared only in this test, with a member of every kind: the one place
// it says what its members are is its struct tags, and from them alone it gets an encoder,
// a decoder and a JSON Schema (filter validate reads the same Shape; see stages).
type probe struct {
	Name   string          `json:"name"`
	Count  int64           `json:"count,omitempty" kind:"number" doc:"how many"`
	Ratio  float64         `json:"ratio"`
	On     bool            `json:"on,omitempty"`
	Labels []string        `json:"labels"`
	Extra  json.RawMessage `json:"extra,omitempty"`
	Cost   Cost            `json:"cost"`
	Blocks []Content       `json:"blocks" blocks:"text"`
	Mode   string          `json:"mode" enum:"fast,slow"`
	Exit   *int64          `json:"exit,omitempty"`
}

func TestOneDeclarationDescribesEncodesDecodesAndSpecifies(t *testing.T) {
	// A description of its own, so that the probe does not join the package's schema.
	d := *described()
	d.shapes, d.plans, d.order = maps.Clone(d.shapes), maps.Clone(d.plans), nil
	typ := reflect.TypeFor[probe]()
	shape := d.shape(typ)
	p := d.plan(typ)

	if got, want := shape.Keys(), []string{"name", "count", "ratio", "on", "labels", "extra", "cost", "blocks", "mode", "exit"}; !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	seven := int64(7)
	v := probe{Name: "n", Count: 3, Ratio: 0.5, On: true, Labels: []string{"a"}, Extra: json.RawMessage(`[1]`),
		Cost: Cost{Total: 1.25}, Blocks: []Content{&TextContent{Text: "t"}}, Mode: "fast", Exit: &seven}
	enc := p.encode(nil, unsafe.Pointer(&v))
	want := `{"name":"n","count":3,"ratio":0.5,"on":true,"labels":["a"],"extra":[1],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":1.25},"blocks":[{"type":"text","text":"t"}],"mode":"fast","exit":7}`
	if string(enc) != want {
		t.Errorf("encoded\n%s\nwant\n%s", enc, want)
	}
	if empty := p.encode(nil, unsafe.Pointer(&probe{})); string(empty) != `{"name":"","ratio":0,"labels":[],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"blocks":[],"mode":""}` {
		t.Errorf("empty value encoded %s", empty)
	}
	back, err := p.decodeNew(objectMembers(gjson.ParseBytes(enc), nil, decodeMode{}), decodeMode{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, &v) {
		t.Errorf("decoded %#v, want %#v", back, &v)
	}
	if _, err := p.decodeNew(objectMembers(gjson.Parse(`{"cost":{"total":"x"}}`), nil, decodeMode{}), decodeMode{}); err == nil || err.Error() != `codec: probe: field "cost.total": expected number, got string` {
		t.Errorf("error %v", err)
	}

	g := schemaGen{defs: obj{}}
	g.def(shape)
	def, err := json.Marshal(g.defs[0].v)
	if err != nil {
		t.Fatal(err)
	}
	wantDef := `{"type":"object","required":["name","ratio","labels","cost","blocks","mode"],"properties":{` +
		`"name":{"type":"string"},"count":{"description":"how many","type":"number"},"ratio":{"type":"number"},` +
		`"on":{"type":"boolean"},"labels":{"type":"array","items":{"type":"string"}},"extra":{},` +
		`"cost":{"$ref":"#/$defs/Cost"},"blocks":{"type":"array","items":{"$ref":"#/$defs/TextContent"}},` +
		`"mode":{"type":"string","enum":["fast","slow"]},"exit":{"type":"integer"}}}`
	if string(def) != wantDef {
		t.Errorf("schema\n%s\nwant\n%s", def, wantDef)
	}
}

func TestParseEventErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"nope"}`: `codec: event: unknown type "nope"`,
		`{"type":1}`:      `codec: event: field "type": expected string, got number`,
		`[]`:              `codec: event: expected object, got array`,
		`{"type":"turn_end","message":{"role":"x"}}`:                                                        `codec: turn_end event: field "message": codec: message: unknown role "x"`,
		`{"type":"agent_end","messages":{}}`:                                                                `codec: agent_end event: field "messages": expected array, got object`,
		`{"type":"compaction_end","result":{"tokensBefore":"9"}}`:                                           `codec: compaction_end event: field "result.tokensBefore": expected number, got string`,
		`{"type":"message_update","assistantMessageEvent":{"type":"text_delta"},"message":{"role":"user"}}`: `codec: message_update event: field "message.role": expected "assistant", got string`,
		`{"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","toolCall":{"id":"a"}}}`:   `codec: message_update event: field "assistantMessageEvent.toolCall.type": expected "toolCall", got nothing`,
		`{"type":"session_action_update","actions":{"steering":["a",2]}}`:                                   `codec: session_action_update event: field "actions.steering[1]": expected string, got number`,
		`{"type":"turn_end","toolResults":[{"role":"toolResult","isError":1}]}`:                             `codec: turn_end event: field "toolResults[0]": codec: toolResult message: field "isError": expected boolean, got number`,
	} {
		if _, err := ParseEvent([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("ParseEvent(%s): %v, want %s", in, err, want)
		}
	}
	// The delta form's toolcall_start names the call with {id, name} only.
	e, err := ParseEvent([]byte(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"toolcall_start","contentIndex":0,"toolCall":{"id":"c1","name":"bash"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tc := e.(*MessageUpdate).Update.ToolCall; tc == nil || tc.ID != "c1" || tc.Name != "bash" {
		t.Errorf("toolCall %#v", tc)
	}
}
