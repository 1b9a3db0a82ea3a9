package cli

import (
	"fmt"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/rpc"
)

// SchemaCmd is `schema [--deltas] [--rpc[=commands|output]]`.
type SchemaCmd struct {
	Deltas bool    `help:"The schema of the delta form (--json-deltas) instead of the full form."`
	RPC    rpcFlag `name:"rpc" placeholder:"commands|output" help:"The schema of --mode rpc's lines: commands, responses, dialog requests and events; =commands: only the commands a client writes, =output: only the lines it reads."`
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
commands are decoded by the same declarations it is made from. Its root tells a line apart
by "type": a command's type is one of the commands, "response" a Response, whose "command"
is a known command (any other only in an error response), "extension_ui_request" a dialog
request, and only a line of any other type is an event (open, as in the stream).
--rpc=commands prints the document whose root is a command (a client's stdin), and
--rpc=output the one whose root is a line a client reads (its stdout).

Copies are in docs/schema/ of the repository: line.schema.json, line-deltas.schema.json,
rpc.schema.json, rpc-commands.schema.json and rpc-output.schema.json.

Examples:

  base-context schema > line.schema.json
  base-context schema --deltas > line-deltas.schema.json
  base-context schema --rpc > rpc.schema.json
  base-context schema --rpc=commands > rpc-commands.schema.json
  base-context schema --rpc=output > rpc-output.schema.json
  base-context schema --rpc | jq '."$defs".PromptCommand'
  base-context schema | jq '."$defs".AssistantMessage.required'`
}

// Run prints the schema.
func (c *SchemaCmd) Run(streams *IO) error {
	schema := codec.JSONSchema(c.Deltas)
	if c.RPC.Set {
		schema = rpc.DirectionSchema(c.RPC.Dir, c.Deltas)
	}
	_, err := streams.Out.Write(schema)
	return err
}

// rpcFlag is --rpc, alone (both directions) or with a direction: --rpc=commands.
type rpcFlag struct {
	Set bool          // --rpc was given
	Dir rpc.Direction // its value
}

// IsBool lets --rpc stand alone.
func (f *rpcFlag) IsBool() bool { return true }

func (f *rpcFlag) Decode(ctx *kong.DecodeContext) (err error) {
	f.Set, f.Dir = true, rpc.Both
	if ctx.Scan.Peek().Type == kong.FlagValueToken {
		if v := fmt.Sprint(ctx.Scan.Pop().Value); v != "true" {
			f.Dir, err = rpc.ParseDirection(v)
		}
	}
	return err
}
