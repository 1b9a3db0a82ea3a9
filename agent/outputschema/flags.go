package outputschema

import "github.com/basecontext/base-context/internal/exitcode"

// SchemaFlags ask for a structured answer (kong tags; the command line embeds them).
type SchemaFlags struct {
	OutputSchema string `placeholder:"FILE" type:"path" help:"JSON Schema the answer must match: the model is told to end with such a JSON value; a mismatch gets one correction prompt, then exits 1. Text mode prints only the JSON."`
}

// Schema reads --output-schema; a missing or invalid schema is a usage error. A nil schema
// asks for no particular answer.
func (f *SchemaFlags) Schema() (*Schema, error) {
	if f.OutputSchema == "" {
		return nil, nil
	}
	s, err := Load(f.OutputSchema)
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, "--output-schema: "+err.Error())
	}
	return s, nil
}
