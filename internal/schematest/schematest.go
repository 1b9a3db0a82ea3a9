// Package schematest compiles the project's JSON Schemas (docs/schema, `base-context schema`)
// for the tests that hold lines to them, with github.com/google/jsonschema-go.
package schematest

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// Resolve compiles doc, a schema whose references stay within it; with def, the schema of
// its definition def: the document with its root a reference to "#/$defs/<def>".
func Resolve(doc []byte, def string) (*jsonschema.Resolved, error) {
	if def != "" {
		var whole map[string]any
		if err := json.Unmarshal(doc, &whole); err != nil {
			return nil, err
		}
		var err error
		doc, err = json.Marshal(map[string]any{"$schema": whole["$schema"], "$defs": whole["$defs"], "$ref": "#/$defs/" + def})
		if err != nil {
			return nil, err
		}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// Validate checks line, one JSON value, against s.
func Validate(s *jsonschema.Resolved, line []byte) error {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return err
	}
	return s.Validate(v)
}
