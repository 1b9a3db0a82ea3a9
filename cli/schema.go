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
