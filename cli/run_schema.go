package cli

import (
	"github.com/basecontext/base-context/agent/outputschema"
	"github.com/basecontext/base-context/codec"
)

// SchemaFlags ask for a structured answer. RunCmd embeds them.
type SchemaFlags struct {
	OutputSchema string `placeholder:"FILE" type:"path" help:"JSON Schema the answer must match: the model is told to end with such a JSON value; a mismatch gets one correction prompt, then exits 1. Text mode prints only the JSON."`
}

// answerSchema is --output-schema, loaded; a nil one asks for no particular answer.
type answerSchema struct{ schema *outputschema.Schema }

// load reads --output-schema; a missing or invalid schema is a usage error.
func (f *SchemaFlags) load() (*answerSchema, error) {
	if f.OutputSchema == "" {
		return nil, nil
	}
	s, err := outputschema.Load(f.OutputSchema)
	if err != nil {
		return nil, Fail(ExitUsage, "--output-schema: "+err.Error())
	}
	return &answerSchema{s}, nil
}

// instructions is what the system prompt gains: how to answer.
func (a *answerSchema) instructions() string {
	if a == nil {
		return ""
	}
	return a.schema.Instructions()
}

// checkAnswer is the agent's answer check (nil without a schema): the correction prompt for
// an answer that does not match.
func (a *answerSchema) checkAnswer() func(string) string {
	if a == nil {
		return nil
	}
	return func(answer string) string {
		if _, problem := a.schema.Check(answer); problem != "" {
			return a.schema.Correction(problem)
		}
		return ""
	}
}

// answer is what text mode prints of a completed run: the final text, or with a schema
// only its JSON value; an answer that still does not match fails the run.
func (a *answerSchema) answer(final *codec.AssistantMessage) (string, error) {
	text := finalText(final)
	if a == nil {
		return text, nil
	}
	value, problem := a.schema.Check(text)
	if problem != "" {
		return "", Fail(ExitFailure, "the answer does not match --output-schema: "+problem)
	}
	return value, nil
}
