package cli

import (
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/mcp"
)

// mcpWhere is where the MCP servers of a run in dir are configured (docs/mcp.md).
func mcpWhere(streams *IO, dir string) (mcp.Where, error) {
	cwd, err := control.WorkDir(dir)
	w := mcp.Where{Home: string(streams.home()), Cwd: cwd, Version: Version, Getenv: streams.Getenv}
	if control.HasHome(streams.Getenv) {
		w.LogDir = streams.home().Logs()
	}
	return w, exitcode.Wrap(exitcode.Usage, err)
}

// MCPCmd is `mcp`: the configured MCP servers, connected to.
type MCPCmd struct {
	List  MCPListCmd  `cmd:"" help:"Connect to each configured MCP server; print its name, transport, status, tool count and error (exit 1 when one failed)."`
	Tools MCPToolsCmd `cmd:"" help:"Connect to one MCP server and list its tools as the model sees them."`
}

type MCPListCmd struct{ mcp.ListFlags }

func (c *MCPListCmd) Run(streams *IO) error { return printMCP(streams, &c.ListFlags, "") }

type MCPToolsCmd struct {
	Name string `arg:"" help:"The server's name."`
	mcp.ListFlags
}

func (c *MCPToolsCmd) Run(streams *IO) error { return printMCP(streams, &c.ListFlags, c.Name) }

// printMCP lists the servers, or with a name that server's tools.
func printMCP(streams *IO, f *mcp.ListFlags, name string) error {
	w, err := mcpWhere(streams, f.Cwd)
	if err != nil {
		return err
	}
	return f.Print(streams.signals.Context(), streams.Out, w, name, name != "")
}
