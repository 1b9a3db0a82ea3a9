package codec

import (
	"encoding/json"
	"testing"
)

// The one string decoder reads what encoding/json reads, surrogates included; Member.Str,
// the partial-argument parser and redaction all go through it.
func TestUnescapeAgreesWithEncodingJSON(t *testing.T) {
	for _, lit := range []string{`"plain"`, `"a\nb\tc\"d\\e\/f\bg\fh\ri"`, `"\u00e9\u4e2d\u0000"`,
		`"\ud83d\ude00 pair"`, `"\ud83d lone high"`, `"\ude00 lone low"`, `"\ud83d\u0041"`,
		`"\uD83D\uDE00 upper"`, `"\ud83d"`, `"tail \ud83d\ud83d\ude00"`, `"\ud83d\n"`, `"\ude00"`} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(lit, err)
		}
		if got := string(AppendUnescaped(nil, []byte(lit[1:len(lit)-1]))); got != want {
			t.Errorf("AppendUnescaped(%s) = %q, want %q", lit, got, want)
		}
		obj := []byte(`{"k":` + lit + `}`)
		if got := Find(obj, "k").Str(obj); got != want {
			t.Errorf("Member.Str(%s) = %q, want %q", lit, got, want)
		}
		args := `{"k":` + lit + `}`
		wantArgs, _ := json.Marshal(map[string]string{"k": want})
		if got := PartialObject(args); string(got) != string(wantArgs) {
			t.Errorf("PartialObject(%s) = %s, want %s", args, got, wantArgs)
		}
	}
}

// An escape cut off waits for the rest, unless the text is final.
func TestUnescapeCutOff(t *testing.T) {
	for _, src := range []string{`\`, `\u00`, `\ud83d`, `\ud83d\`, `\ud83d\ude0`} {
		if _, n, ok := Unescape([]byte(src), false); ok {
			t.Errorf("Unescape(%s) took %d bytes of a cut-off escape", src, n)
		}
	}
	if r, n, ok := Unescape([]byte(`\ud83d`), true); !ok || n != 6 || r != '\uFFFD' {
		t.Errorf("final lone surrogate: %q %d %v", r, n, ok)
	}
}
