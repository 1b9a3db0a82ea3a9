// Package outputschema holds a run to a structured answer: the model is told to end with a
// JSON value matching a JSON Schema, and its answer is checked against it.
package outputschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/basecontext/base-context/internal/userfile"
	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a resolved JSON Schema with its source, which the model is shown.
type Schema struct {
	source   []byte
	resolved *jsonschema.Resolved
}

// Load reads the schema at path and resolves its references: to its own definitions, and to
// files by paths relative to it.
func Load(path string) (*Schema, error) {
	data, err := userfile.Read(path, userfile.SchemaMax)
	if err != nil {
		return nil, err
	}
	root, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	base := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	resolved, err := root.Resolve(&jsonschema.ResolveOptions{BaseURI: base.String(), Loader: loadReferenced})
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid JSON Schema: %v", path, err)
	}
	return &Schema{source: bytes.TrimSpace(data), resolved: resolved}, nil
}

// loadReferenced reads a schema another one refers to by a file: URI.
func loadReferenced(uri *url.URL) (*jsonschema.Schema, error) {
	if uri.Scheme != "file" {
		return nil, fmt.Errorf("only files can be referred to, not %s", uri.Redacted())
	}
	data, err := userfile.Read(filepath.FromSlash(uri.Path), userfile.SchemaMax)
	if err != nil {
		return nil, err
	}
	return parse(uri.Path, data)
}

// parse reads a schema document and settles its draft.
func parse(path string, data []byte) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("%s is not JSON: %v", path, err)
		}
		return nil, fmt.Errorf("%s is not a valid JSON Schema: %v", path, err)
	}
	draft, ok := supportedDraft(s.Schema)
	if !ok {
		return nil, fmt.Errorf("%s declares \"$schema\": %q; the drafts supported are draft-07 and 2020-12 (the default)", path, s.Schema)
	}
	s.Schema = draft
	if err := checkTypeNames(&s, "root"); err != nil {
		return nil, fmt.Errorf("%s is not a valid JSON Schema: %v", path, err)
	}
	return &s, nil
}

// jsonTypes are the names a "type" may give.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// checkTypeNames finds a "type" that names no JSON type ("int", "bool", "str"), in s or a
// schema within it. The validator does not check a schema against its meta-schema: it would
// take such a name for a type no value has and fail every answer, after the run.
func checkTypeNames(s *jsonschema.Schema, at string) error {
	for _, name := range append([]string{s.Type}, s.Types...) {
		if name != "" && !slices.Contains(jsonTypes, name) {
			return fmt.Errorf("at %s: type %q is not one of %s", at, name, strings.Join(jsonTypes, ", "))
		}
	}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		field := v.Type().Field(i)
		if !field.IsExported() {
			continue
		}
		var err error
		switch sub := v.Field(i).Interface().(type) {
		case *jsonschema.Schema:
			if sub != nil {
				err = checkTypeNames(sub, pointer(at, keyword(field)))
			}
		case []*jsonschema.Schema:
			for j, item := range sub {
				if item != nil && err == nil {
					err = checkTypeNames(item, pointer(at, keyword(field), strconv.Itoa(j)))
				}
			}
		case map[string]*jsonschema.Schema:
			for _, key := range slices.Sorted(maps.Keys(sub)) {
				if sub[key] != nil && err == nil {
					err = checkTypeNames(sub[key], pointer(at, keyword(field), key))
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// keyword is the schema keyword a field of jsonschema.Schema holds.
func keyword(field reflect.StructField) string {
	switch field.Name { // read by the schema's own UnmarshalJSON, so tagged "-"
	case "Items", "ItemsArray":
		return "items"
	case "DependencySchemas":
		return "dependencies"
	}
	name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
	return name
}

// pointer is the JSON pointer of a schema within the one at `at`, as the validator names
// schemas: "root" for the document's.
func pointer(at string, steps ...string) string {
	if at == "root" {
		at = ""
	}
	for _, step := range steps {
		at += "/" + strings.ReplaceAll(strings.ReplaceAll(step, "~", "~0"), "/", "~1")
	}
	return at
}

// supportedDraft is the spelling of a declared $schema the validator recognises, for the
// drafts it implements; "" (none declared) is 2020-12. The validator knows only the spellings
// the meta-schemas give as their $id, but schemas in use also write them without the "#" or
// with http for https: those mean the same draft.
func supportedDraft(declared string) (string, bool) {
	switch strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(declared, "http://"), "https://"), "#") {
	case "":
		return "", declared == ""
	case "json-schema.org/draft-07/schema":
		return "http://json-schema.org/draft-07/schema#", true
	case "json-schema.org/draft/2020-12/schema":
		return "https://json-schema.org/draft/2020-12/schema", true
	}
	return "", false
}

// Instructions are added to the system prompt: how the answer must end; "" for a nil
// schema (a run that asks for no particular answer).
func (s *Schema) Instructions() string {
	if s == nil {
		return ""
	}
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
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return "", "the answer's JSON does not parse: " + err.Error()
	}
	if err := s.resolved.Validate(v); err != nil {
		return "", problemText(err)
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

// CheckAnswer is the agent's answer check, nil for a nil schema: the correction prompt for
// an answer that does not match, "" for one that does.
func (s *Schema) CheckAnswer() func(string) string {
	if s == nil {
		return nil
	}
	return func(answer string) string {
		if _, problem := s.Check(answer); problem != "" {
			return s.Correction(problem)
		}
		return ""
	}
}

// Answer is what is printed of a final answer: the answer itself with a nil schema, else
// only its JSON value; an answer that does not match is an error saying why.
func (s *Schema) Answer(answer string) (string, error) {
	if s == nil {
		return answer, nil
	}
	value, problem := s.Check(answer)
	if problem != "" {
		return "", errors.New(problem)
	}
	return value, nil
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

// problemText is a validation error as the validator words it (the schema locations it went
// through, then what is wrong), on one line: a failed anyOf lists each branch's problem on a
// line of its own.
func problemText(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}
