package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
)

// (In a file named redact*_test.go: the redaction corpus test leaves its secrets alone.)
func TestAnswerRedacted(t *testing.T) {
	// With a redaction, what is written adds up to the redaction of the whole text: a
	// secret cut between pieces, and one over several lines (a PEM key), never shows.
	r, err := redact.New(redact.Options{Literals: []redact.Literal{{ID: "token", Value: "sk-secret-value"}}})
	if err != nil {
		t.Fatal(err)
	}
	delta := func(s string) codec.Event {
		return &codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, Delta: s}}
	}
	start := &codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextStart}}
	end := &codec.MessageUpdate{Update: &codec.AssistantMessageEvent{Type: codec.UpdateTextEnd}}
	var buf bytes.Buffer
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----\n"
	text := "key: sk-secret-value and\n" + key + "done"
	for _, pieces := range []int{1, 3, 7} {
		buf.Reset()
		a := NewAnswer(&buf, r)
		a.Event(start)
		for i := 0; i < len(text); i += pieces {
			a.Event(delta(text[i:min(i+pieces, len(text))]))
		}
		a.Event(end)
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if want := r.RedactString(text) + "\n"; buf.String() != want {
			t.Errorf("pieces of %d: %q, want %q", pieces, buf.String(), want)
		}
		if strings.Contains(buf.String(), "sk-secret") || strings.Contains(buf.String(), "MIIE") {
			t.Errorf("pieces of %d: a secret shows: %q", pieces, buf.String())
		}
	}
}
