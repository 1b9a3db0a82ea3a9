package cli

import "github.com/basecontext/base-context/codec"

// SchemaCmd is `schema [--deltas]`.
type SchemaCmd struct {
	Deltas bool `help:"The schema of the delta form (--json-deltas) instead of the full form."`
}

// Help is the long help of `schema --help`.
func (c *SchemaCmd) Help() string {
	return `Prints the JSON Schema (draft 2020-12) of one line of the stream, made from the same
description the encoders, decoders and filter validate use. Objects are open: within header
version 3 the stream only gains optional members and new types, and a consumer must ignore
those it does not know. The orders between lines are in docs/stream.md; filter validate
checks them. Copies are in docs/schema/ of the repository.

Examples:

  base-context schema > line.schema.json
  base-context schema --deltas > line-deltas.schema.json
  base-context schema | jq '."$defs".AssistantMessage.required'`
}

// Run prints the schema.
func (c *SchemaCmd) Run(streams *IO) error {
	_, err := streams.Out.Write(codec.JSONSchema(c.Deltas))
	return err
}
