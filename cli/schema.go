package cli

import (
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/rpc"
)

// SchemaCmd is `schema [--deltas] [--rpc]`.
type SchemaCmd struct {
	Deltas bool `help:"The schema of the delta form (--json-deltas) instead of the full form."`
	RPC    bool `name:"rpc" help:"The schema of --mode rpc's lines: commands, responses, dialog requests and events."`
}

// Help is the long help of `schema --help`.
func (c *SchemaCmd) Help() string {
	return `Prints the JSON Schema (draft 2020-12) of one line of the stream, made from the same
description the encoders, decoders and filter validate use. Objects are open: within header
version 3 the stream only gains optional members and new types, and a consumer must ignore
those it does not know. The orders between lines are in docs/stream.md; filter validate
checks them.

With --rpc it prints one document for --mode rpc instead: its $defs hold Command (one
command line a client writes, told apart by "type", each command's arguments with "id"
optional), Response (told apart by "command", with each command's "data"),
ExtensionUIRequest (a dialog request) and the stream's Event with everything it holds. The
commands are decoded by the same declarations it is made from.

Copies are in docs/schema/ of the repository: line.schema.json, line-deltas.schema.json and
rpc.schema.json.

Examples:

  base-context schema > line.schema.json
  base-context schema --deltas > line-deltas.schema.json
  base-context schema --rpc > rpc.schema.json
  base-context schema --rpc | jq '."$defs".PromptCommand'
  base-context schema | jq '."$defs".AssistantMessage.required'`
}

// Run prints the schema.
func (c *SchemaCmd) Run(streams *IO) error {
	schema := codec.JSONSchema
	if c.RPC {
		schema = rpc.JSONSchema
	}
	_, err := streams.Out.Write(schema(c.Deltas))
	return err
}
