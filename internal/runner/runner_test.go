package runner

import (
	"path/filepath"
	"testing"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/tidwall/gjson"
)

func TestStoreRecordsModelAndThinking(t *testing.T) {
	p := &Plan{Model: provider.Model{Provider: "anthropic", ID: "claude-x"}}
	mem := session.NewMemory()
	p.Store(Options{Thinking: "high"}, mem)
	entries := mem.Entries()
	if len(entries) != 2 {
		t.Fatalf("got %d entries, want a model change and a thinking level", len(entries))
	}
	if e := entries[0]; e.Type != session.TypeModelChange || gjson.GetBytes(e.Raw, "provider").Str != "anthropic" || gjson.GetBytes(e.Raw, "modelId").Str != "claude-x" {
		t.Errorf("first entry = %s, want the model change to anthropic/claude-x", e.Raw)
	}
	if e := entries[1]; e.Type != session.TypeThinkingLevelChange || gjson.GetBytes(e.Raw, "thinkingLevel").Str != "high" {
		t.Errorf("second entry = %s, want thinking level high", e.Raw)
	}
}

func TestAgentConfigFromPlanAndOptions(t *testing.T) {
	cwd := t.TempDir()
	p := &Plan{Cwd: cwd, Model: provider.Model{Provider: "anthropic", ID: "claude-x"}, SystemPrompt: "be brief", ToolNames: []string{"read", "bash"}}
	var longRunCwd string
	o := Options{Thinking: "low", Retry: agent.RetryPolicy{MaxRetries: 7},
		Outputs: func(id string) string { return filepath.Join("/outputs", id) },
		LongRun: func(cfg agent.Config, dir string) agent.Config {
			longRunCwd = dir
			cfg.Autonomous = true
			return cfg
		}}
	cfg := p.AgentConfig(o, "sess-1", agent.Config{})
	var names []string
	for _, tool := range cfg.Tools {
		names = append(names, tool.Name())
	}
	if len(names) != 2 || names[0] != "read" || names[1] != "bash" {
		t.Errorf("tools = %v, want the plan's [read bash]", names)
	}
	if cfg.Model.ID != "claude-x" || cfg.SystemPrompt != "be brief" || cfg.ThinkingLevel != "low" || cfg.Retry.MaxRetries != 7 {
		t.Errorf("config = model %q prompt %q thinking %q retries %d, want the plan's and options'", cfg.Model.ID, cfg.SystemPrompt, cfg.ThinkingLevel, cfg.Retry.MaxRetries)
	}
	if !cfg.Autonomous || longRunCwd != cwd {
		t.Errorf("LongRun not applied in the plan's directory (autonomous %v, dir %q)", cfg.Autonomous, longRunCwd)
	}
	if cfg.Gates.Tools.Cwd != cwd || cfg.Gates.Tools.TempDir != filepath.Join("/outputs", "sess-1") {
		t.Errorf("gate tools options = %+v, want cwd %s and the outputs of sess-1", cfg.Gates.Tools, cwd)
	}
}
