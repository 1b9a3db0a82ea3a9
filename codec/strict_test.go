package codec

import (
	"strings"
	"testing"
)

func TestDecodeStrictNamesTheLine(t *testing.T) {
	var v struct {
		A int            `json:"a"`
		B map[string]int `json:"b"`
	}
	for doc, want := range map[string]string{
		"{\n \"a\": 1,\n \"zz\": {\"x\": [1,\n 2]}\n}": "line 3: json: unknown field \"zz\"",
		"{\n \"a\": \"one\"\n}":                        "line 2: json: cannot unmarshal string",
		"{\n \"a\": 1,\n \"b\": {\"x\": 1,,}\n}":       "line 3: invalid character ','",
	} {
		err := DecodeStrict([]byte(doc), &v)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s…", doc, err, want)
		}
	}
}
