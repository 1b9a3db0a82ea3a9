package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/basecontext/base-context/codec"
)

// failedError is a listing in which a server failed: exit 1, after the listing.
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }
func (e *failedError) ExitCode() int { return 1 }

// usageError is a server name the configuration does not have: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) ExitCode() int { return 2 }

// List writes the servers' statuses (`mcp list`): a table of name, transport, status, tools
// and error, or with asJSON one mcp_server_status line each, as the stream has them. A failed
// server makes the error (exit 1).
func List(w io.Writer, set *Set, asJSON bool) error {
	statuses := set.Statuses()
	if len(statuses) == 0 && !asJSON {
		_, err := fmt.Fprintln(w, "No MCP servers are configured here (<repo>/.mcp.json, the settings' mcpServers, --mcp-config).")
		return err
	}
	failed := 0
	out := codec.NewLineWriter(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintln(tw, "NAME\tTRANSPORT\tSTATUS\tTOOLS\tERROR")
	}
	for _, st := range statuses {
		if st.Status == "failed" {
			failed++
		}
		if asJSON {
			if err := out.WriteLine(st.AppendJSON(nil)); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", st.Name, st.Transport, st.Status, st.Tools, oneLine(st.Error))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return &failedError{fmt.Sprintf("%d of %d MCP servers failed", failed, len(statuses))}
	}
	return nil
}

// Only keeps the server named, for `mcp tools NAME`; an unknown name is a usage error that
// lists the names there are.
func Only(servers []*Server, name string) ([]*Server, error) {
	var names []string
	for _, s := range servers {
		if s.Name == name {
			return []*Server{s}, nil
		}
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return nil, &usageError{fmt.Sprintf("no MCP server %q: none is configured here", name)}
	}
	return nil, &usageError{fmt.Sprintf("no MCP server %q (configured: %s)", name, strings.Join(names, ", "))}
}

// ListTools writes the tools of the one server of set (`mcp tools NAME`): a table of the name
// offered to the model, whether --read-only allows it, and the description; with asJSON one
// object per tool with its input schema. A server that failed is the error (exit 1).
func ListTools(w io.Writer, set *Set, asJSON bool) error {
	for _, st := range set.Statuses() {
		if st.Status != "connected" {
			return &failedError{strings.TrimSuffix(fmt.Sprintf("MCP server %s: %s: %s", st.Name, st.Status, st.Error), ": ")}
		}
	}
	out := codec.NewLineWriter(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintln(tw, "TOOL\tREAD-ONLY\tDESCRIPTION")
	}
	for _, t := range set.tools {
		readOnly := !set.Writes(t.name)
		desc := (&boundTool{remoteTool: t}).Description()
		if asJSON {
			line, err := json.Marshal(struct {
				Name        string          `json:"name"`
				Tool        string          `json:"tool"`
				ReadOnly    bool            `json:"readOnly"`
				Description string          `json:"description,omitempty"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}{t.name, t.remote.Name, readOnly, desc, t.params})
			if err != nil {
				return err
			}
			if err := out.WriteLine(line); err != nil {
				return err
			}
			continue
		}
		yes := map[bool]string{true: "yes", false: "no"}[readOnly]
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.name, yes, oneLine(desc))
	}
	return tw.Flush()
}

// oneLine is the first line of s, for a table cell.
func oneLine(s string) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", 2)
	return slices.Concat(lines, []string{""})[0]
}
