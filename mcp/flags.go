package mcp

import (
	"context"
	"io"
)

// ConfigFlags say which servers a run connects to (kong tags; the command line embeds them).
type ConfigFlags struct {
	MCPConfig       []string `name:"mcp-config" placeholder:"FILE|JSON" sep:"none" help:"MCP servers ({\"mcpServers\":{…}}, as .mcp.json), from a file or given as JSON (repeatable); besides <repo>/.mcp.json and the settings' mcpServers."`
	StrictMCPConfig bool     `name:"strict-mcp-config" help:"Only the servers of --mcp-config."`
	NoMCP           bool     `name:"no-mcp" help:"No MCP servers."`
}

// Where is where servers are looked for: the home, the run's directory, the servers' log
// folder ("": none) and the version the client announces.
type Where struct {
	Home, Cwd, LogDir, Version string
	Getenv                     func(string) string
}

// Load reads the servers configured for a run (Load), and the options they start with.
func (f *ConfigFlags) Load(w Where) ([]*Server, Options, error) {
	servers, err := Load(Sources{Home: w.Home, Cwd: w.Cwd, Flags: f.MCPConfig, Strict: f.StrictMCPConfig, None: f.NoMCP, Getenv: w.Getenv})
	return servers, Options{Cwd: w.Cwd, LogDir: w.LogDir, Version: w.Version}, err
}

// ListFlags are those of `mcp list` and `mcp tools`.
type ListFlags struct {
	ConfigFlags
	Cwd  string `short:"C" name:"cwd" placeholder:"DIR" help:"The servers of a run started in DIR."`
	JSON bool   `name:"json" help:"JSON lines instead of a table."`
}

// Print starts the servers configured (only the one named, when name is not "") and writes
// them (List) or, with tools, their tools (ListTools).
func (f *ListFlags) Print(ctx context.Context, out io.Writer, w Where, name string, tools bool) error {
	servers, opts, err := f.Load(w)
	if err == nil && name != "" {
		servers, err = Only(servers, name)
	}
	if err != nil {
		return err
	}
	set := Start(ctx, servers, opts)
	defer set.Close()
	if tools {
		return ListTools(out, set, f.JSON)
	}
	return List(out, set, f.JSON)
}
