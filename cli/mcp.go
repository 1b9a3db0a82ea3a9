package cli

import (
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/mcp"
)

// MCPFlags say which MCP servers a run connects to (docs/mcp.md).
type MCPFlags struct {
	MCPConfig       []string `name:"mcp-config" placeholder:"FILE|JSON" sep:"none" help:"MCP servers ({\"mcpServers\":{…}}, as .mcp.json), from a file or given as JSON (repeatable); besides <repo>/.mcp.json and the settings' mcpServers."`
	StrictMCPConfig bool     `name:"strict-mcp-config" help:"Only the servers of --mcp-config."`
	NoMCP           bool     `name:"no-mcp" help:"No MCP servers."`
}

// load reads the servers configured for a run in cwd, and the options they start with.
func (f *MCPFlags) load(streams *IO, cwd string) ([]*mcp.Server, mcp.Options, error) {
	logs := ""
	if control.HasHome(streams.Getenv) {
		logs = streams.home().Logs()
	}
	servers, err := mcp.Load(mcp.Sources{Home: string(streams.home()), Cwd: cwd, Flags: f.MCPConfig, Strict: f.StrictMCPConfig, None: f.NoMCP, Getenv: streams.Getenv})
	return servers, mcp.Options{Cwd: cwd, LogDir: logs, Version: Version}, err
}

// MCPCmd is `mcp`: the configured MCP servers, connected to.
type MCPCmd struct {
	List  MCPListCmd  `cmd:"" help:"Connect to each configured MCP server; print its name, transport, status, tool count and error (exit 1 when one failed)."`
	Tools MCPToolsCmd `cmd:"" help:"Connect to one MCP server and list its tools as the model sees them."`
}

// MCPWhere are the flags of both mcp commands.
type MCPWhere struct {
	MCPFlags
	Cwd  string `short:"C" name:"cwd" placeholder:"DIR" help:"The servers of a run started in DIR."`
	JSON bool   `name:"json" help:"JSON lines instead of a table."`
}

// with starts the servers configured (only the one named, when name is not "") for list.
func (w *MCPWhere) with(streams *IO, name string, list func(*mcp.Set) error) error {
	cwd, err := control.WorkDir(w.Cwd)
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	servers, opts, err := w.load(streams, cwd)
	if err == nil && name != "" {
		servers, err = mcp.Only(servers, name)
	}
	if err != nil {
		return err
	}
	set := mcp.Start(streams.signals.Context(), servers, opts)
	defer set.Close()
	return list(set)
}

type MCPListCmd struct{ MCPWhere }

func (c *MCPListCmd) Run(streams *IO) error {
	return c.with(streams, "", func(set *mcp.Set) error { return mcp.List(streams.Out, set, c.JSON) })
}

type MCPToolsCmd struct {
	Name string `arg:"" help:"The server's name."`
	MCPWhere
}

func (c *MCPToolsCmd) Run(streams *IO) error {
	return c.with(streams, c.Name, func(set *mcp.Set) error { return mcp.ListTools(streams.Out, set, c.JSON) })
}
