package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DecodeStrict decodes a configuration document into v, refusing unknown fields; an error
// names the line (from 1) where decoding failed: "line 3: json: unknown field \"x\"".
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("line %d: %w", errorLine(data, err, dec.InputOffset()), err)
	}
	return nil
}

// errorLine is the line (from 1) of data where decoding failed with err: the error's own
// offset when it has one, else the unknown field's key before where the decoder stopped.
func errorLine(data []byte, err error, stopped int64) int {
	off := stopped
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		off = syntax.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	off = min(max(off, 0), int64(len(data)))
	// The decoder reports an unknown field after reading its value: the line is the key's.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := bytes.LastIndex(data[:off], []byte(name)); i >= 0 {
			off = int64(i)
		}
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
