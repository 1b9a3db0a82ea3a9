package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
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
		if t == reflect.TypeFor[AssistantMessageEvent]() {
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
			TypeSessionActionUpdate, TypeCompactionStart, TypeCompactionEnd, TypeAutoRetryStart, TypeAutoRetryEnd}},
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
