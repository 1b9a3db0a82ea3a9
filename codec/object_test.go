package codec

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// request is an object outside the stream, declared only in this test.
type request struct {
	Text   string    `json:"text"`
	Images []Content `json:"images,omitempty" blocks:"image"`
	Mode   string    `json:"mode,omitempty" enum:"fast,slow"`
	On     bool      `json:"on"`
	Usage  *Usage    `json:"usage,omitempty"`
	Tokens *int64    `json:"tokens" nullable:"true"`
}

func TestDecodeHoldsAnObjectToItsDescription(t *testing.T) {
	var r request
	err := Decode(gjson.Parse(`{"text":"hi","images":[{"type":"image","data":"aGk=","mimeType":"image/png"}],"on":true,"mode":null,"extra":1,"usage":{"input":3},"tokens":null}`), &r)
	if err != nil || r.Text != "hi" || len(r.Images) != 1 || !r.On || r.Mode != "" || r.Usage == nil || r.Usage.Input != 3 || r.Tokens != nil {
		t.Fatalf("decoded %+v, %v", r, err)
	}
	for _, c := range []struct {
		json    string
		problem Problem
		key     string
		index   int
	}{
		{`{"on":true}`, ProblemMissing, "text", 0},
		{`{"text":null,"on":true}`, ProblemKind, "text", 0},
		{`{"text":"x"}`, ProblemMissing, "on", 0},
		{`{"text":"x","on":1}`, ProblemKind, "on", 0},
		{`{"text":"x","images":{},"on":true}`, ProblemKind, "images", 0},
		{`{"text":"x","images":[{"type":"image"},{"type":"text","text":"t"}],"on":true}`, ProblemVariant, "images", 1},
		{`{"text":"x","images":[{"type":"image","data":1}],"on":true}`, ProblemInvalid, "images", 0},
		{`{"text":"x","mode":"medium","on":true}`, ProblemEnum, "mode", 0},
		{`{"text":"x","on":true,"usage":{"input":"3"}}`, ProblemInvalid, "usage", 0},
		{`{"text":"x","on":true}`, ProblemMissing, "tokens", 0},
		{`{"text":"x","on":true,"tokens":"5"}`, ProblemKind, "tokens", 0},
		// The members are checked in their order, not the object's.
		{`{"on":"yes","text":5}`, ProblemKind, "text", 0},
	} {
		err := Decode(gjson.Parse(c.json), &request{})
		var me *MemberError
		if !errors.As(err, &me) || me.Problem != c.problem || me.Member.Key != c.key || me.Index != c.index {
			t.Errorf("%s: %v (%+v), want problem %d with %q[%d]", c.json, err, me, c.problem, c.key, c.index)
		}
	}
	err = Decode(gjson.Parse(`{"text":"x","images":[{"type":"image","data":1}],"on":true}`), &request{})
	if err == nil || !strings.HasPrefix(errors.Unwrap(err).Error(), "block 0: ") {
		t.Errorf("the decoder's error inside the member: %v", err)
	}
}

func TestDescribeObjectsOutsideTheStream(t *testing.T) {
	s := Describe((*request)(nil))
	if s != Describe(request{}) {
		t.Error("a type is described once")
	}
	if m := s.Member("images"); m.Kind != KindArray || m.Union != Contents() || len(m.Allowed) != 1 {
		t.Errorf("images: %+v", m)
	}
	if m := s.Member("usage"); m.Shape != ShapeOf(&Usage{}) {
		t.Error("a stream type is described as the stream describes it")
	}
	if m := s.Member("tokens"); m.Kind != KindInteger || !m.Nullable || m.MayBeAbsent() {
		t.Errorf("tokens: %+v", m)
	}
	if ShapeOf(&request{}) != nil || strings.Contains(string(JSONSchema(false)), "Request") {
		t.Error("an object outside the stream joined the stream's description")
	}
	doc := string(SchemaDocument("t", "d", false, nil, []*Shape{s}, Root{Otherwise: "Request"}))
	for _, want := range []string{`"Request": {`, `"$ref": "#/$defs/Request"`, `"type": "null"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %s", want)
		}
	}
}
