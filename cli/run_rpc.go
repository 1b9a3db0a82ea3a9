package cli

import (
	"fmt"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/rpc"
)

// validateRPC checks the flags of --mode rpc: prompts come as commands on stdin.
func (c *RunCmd) validateRPC() error {
	switch {
	case len(c.Prompts) > 0:
		return fmt.Errorf("--mode rpc takes its prompts as commands on stdin, not as arguments")
	case c.Detach:
		return fmt.Errorf("--mode rpc is driven by its client over stdin: it cannot --detach")
	case len(c.RequireSkill) > 0:
		return fmt.Errorf("--require-skill checks a run of text or json mode; an rpc client sees skill_activated events")
	}
	return nil
}

// runRPC is `--mode rpc`: package rpc's protocol on stdin and stdout, with the run flags'
// sessions and agents; rpc.Server.Run says how it ends.
func (c *RunCmd) runRPC(streams *IO, set settled) error {
	ctx := streams.signals.Context()
	p, err := c.plan(streams, newModels(streams), set, nil)
	if err != nil {
		return err
	}
	defer p.Source.Close() // a session the server never opened
	defer p.Sandbox.Close()
	err = p.StartMCP(ctx)
	defer p.MCP.Close()
	if err != nil {
		return err
	}
	host := &rpc.Local{Plan: p, Options: c.runOptions(streams), SessionDir: c.folder(streams).Dir, RegistryDir: streams.home().Registry(), Memory: c.NoSession,
		Start: func() (*control.Session, *control.Run, error) {
			rs, err := c.openSession(streams, p)
			if err != nil {
				return nil, nil, err
			}
			return rs.Session, rs.Run, nil
		},
		Getenv: streams.Getenv, APIKey: c.APIKey,
		Resolve: func(providerName, id string) (provider.Model, provider.Provider, error) {
			f := c.ModelFlags
			f.Model, f.Provider = id, providerName
			return f.resolve(streams, p.Models, "")
		},
		Warnings: streams.warn,
	}
	srv := host.NewServer(streams.Out)
	// --permission-mode ask puts each call no rule decides to the client, as a confirm dialog.
	if host.Permission, err = c.permission(p, set.sources, host.Ask); err != nil {
		return err
	}
	if host.Telemetry, err = c.OtelFlags.Start(streams.Getenv, c.RedactRule.Redaction("redact-", p.Models.Keys(c.APIKey)), len(c.Gate) > 0, versionString()); err != nil {
		return err
	}
	defer p.Redaction.PrintReport(streams.Err)
	err = srv.Run(ctx, streams.In, streams.signals.Received)
	host.Telemetry.End(err, streams.Err)
	return err
}
