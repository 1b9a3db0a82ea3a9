package session_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
)

// With --redact-session, every method by which a store writes an entry redacts what it
// writes. The methods are found by reflection, so that a new one the wrapper does not
// handle fails here instead of writing secrets to the session file.
func TestRedactingStoreRedactsEveryAppend(t *testing.T) {
	// In two pieces, so that the source stays in the redaction's clean corpus.
	const secret = "ghp_" + "R2d8Kq9Lm4Xz7Wv1Tn6Yb3Hc5Jf0Gs8Pa2Ue"
	const literal = "corp-vpn-2291"
	r, err := redact.New(redact.Options{Literals: []redact.Literal{{ID: "literal", Value: literal}}})
	if err != nil {
		t.Fatal(err)
	}
	mem := session.NewMemory()
	wrapped := reflect.ValueOf(session.Redacting(mem, r))

	memType := reflect.TypeOf(mem)
	called := 0
	for i := range memType.NumMethod() {
		name := memType.Method(i).Name
		if !strings.HasPrefix(name, "Append") {
			continue
		}
		m := wrapped.MethodByName(name)
		if !m.IsValid() {
			t.Errorf("the redacting store hides %s: the agent's type checks would not find it", name)
			continue
		}
		var args []reflect.Value
		for j := range m.Type().NumIn() {
			text := "use " + secret + " on " + literal
			switch in := m.Type().In(j); {
			case in.Kind() == reflect.String:
				args = append(args, reflect.ValueOf(text))
			case in == reflect.TypeOf([]byte(nil)):
				args = append(args, reflect.ValueOf([]byte(`{"summary":"`+text+`","n":1.50}`)))
			case in == reflect.TypeOf((*codec.Message)(nil)).Elem():
				var msg codec.Message = &codec.UserMessage{Text: text, Timestamp: 1}
				args = append(args, reflect.ValueOf(&msg).Elem())
			default:
				t.Fatalf("%s takes a %s: teach this test what to pass", name, in)
			}
		}
		for _, out := range m.Call(args) {
			if err, ok := out.Interface().(error); ok && err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		called++
	}
	entries := mem.Entries()
	if len(entries) != called || called < 4 {
		t.Fatalf("%d entries for %d Append methods called", len(entries), called)
	}
	for _, e := range entries {
		raw := string(e.Raw)
		if strings.Contains(raw, secret[:8]) || strings.Contains(raw, literal) {
			t.Errorf("%s entry written with a secret: %s", e.Type, raw)
		}
	}
	// The unchanged parts of an entry's fields keep their bytes.
	for _, e := range entries {
		switch e.Type {
		case session.TypeMessage, session.TypeModelChange, session.TypeThinkingLevelChange:
		default:
			if !strings.Contains(string(e.Raw), `"n":1.50`) {
				t.Errorf("the fields of a %s entry were re-encoded: %s", e.Type, e.Raw)
			}
		}
	}
}
