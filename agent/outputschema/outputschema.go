// Package outputschema holds a run to a structured answer: the model is told to end with a
// JSON value matching a JSON Schema, and its answer is checked against it.
package outputschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled JSON Schema with its source, which the model is shown.
type Schema struct {
	source []byte
	schema *jsonschema.Schema
}

// Load reads and compiles the schema at path.
func Load(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s is not JSON: %v", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	url := "file://" + filepath.ToSlash(abs)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid JSON Schema: %v", path, err)
	}
	return &Schema{source: bytes.TrimSpace(data), schema: sch}, nil
}

// Instructions are added to the system prompt: how the answer must end.
func (s *Schema) Instructions() string {
	return "\n\n# Answer format\n\nWhen you have finished the task, end with your answer as a single JSON value that " +
		"matches the JSON Schema below, and nothing after it. Put it in a ```json code block or give it alone; " +
		"it is read by a program.\n\n```json\n" + string(s.source) + "\n```\n"
}

// Check finds the JSON value an answer ends with and validates it: it returns the value
// (compact, as the answer gave it) or the first problem found.
func (s *Schema) Check(answer string) (value string, problem string) {
	raw, ok := extract(answer)
	if !ok {
		return "", "the answer holds no JSON value"
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		return "", "the answer's JSON does not parse: " + err.Error()
	}
	if err := s.schema.Validate(v); err != nil {
		return "", firstProblem(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return "", "the answer's JSON does not parse: " + err.Error()
	}
	return b.String(), ""
}

// Correction is the prompt sent once when an answer does not match.
func (s *Schema) Correction(problem string) string {
	return "Your answer does not match the required JSON Schema: " + problem +
		". Reply with only the corrected JSON value, matching the schema given in the system prompt."
}

// extract is the JSON value of an answer: the whole text, else its last ```json (or ```)
// block, else the text from its first { or [ to its last } or ].
func extract(answer string) (string, bool) {
	text := strings.TrimSpace(answer)
	if json.Valid([]byte(text)) {
		return text, true
	}
	if end := strings.LastIndex(text, "```"); end > 0 {
		if start := strings.LastIndex(text[:end], "```"); start >= 0 {
			block := text[start+3 : end]
			if nl := strings.IndexByte(block, '\n'); nl >= 0 && !strings.ContainsAny(block[:nl], "{[\"") {
				block = block[nl+1:] // the fence's language tag
			}
			if block = strings.TrimSpace(block); json.Valid([]byte(block)) {
				return block, true
			}
		}
	}
	start := strings.IndexAny(text, "{[")
	end := strings.LastIndexAny(text, "}]")
	if start >= 0 && end > start && json.Valid([]byte(text[start:end+1])) {
		return text[start : end+1], true
	}
	return "", false
}

// firstProblem is the first leaf of a validation error: "at '/items/0': missing property 'id'".
func firstProblem(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return strings.TrimSpace(ve.Error())
}
