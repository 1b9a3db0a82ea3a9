package agent

import (
	"fmt"
	"slices"
	"time"
)

// LongRunFlags are the flags of long unattended runs: compaction, autonomous runs with
// limits, and gates (kong tags; the command line embeds them).
type LongRunFlags struct {
	Compaction        string `enum:"on,off" default:"on" help:"Compact the context automatically when it nears the model's window or overflows it (a /compact prompt works either way)."`
	CompactionReserve int64  `bound:"nonnegative" placeholder:"TOKENS" help:"Tokens kept free below the context window: compaction starts when the context reaches the window minus this (default 16384, at most a quarter of the window)."`
	CompactionKeep    int64  `bound:"nonnegative" default:"20000" placeholder:"TOKENS" help:"Tokens of recent messages a compaction keeps whole."`

	Autonomous       bool          `help:"Keep working without a human: when the agent stops without saying it is done (the last line of its answer reading DONE), queue a continuation prompt. The limits below apply, with their defaults."`
	MaxTurns         int           `bound:"nonnegative" placeholder:"N" help:"Stop after N model turns (exit 3). Default with --autonomous: 12."`
	MaxTokens        int64         `bound:"nonnegative" placeholder:"N" help:"Stop once N tokens are used (exit 3). Default with --autonomous: 80000."`
	MaxTime          time.Duration `bound:"nonnegative" placeholder:"DURATION" help:"Stop once the run has taken this long (exit 3). Default with --autonomous: 30m."`
	MaxCost          float64       `bound:"nonnegative" placeholder:"USD" help:"Stop once the model calls (summaries included) have cost this many dollars at the catalog's prices (exit 3)."`
	MaxContinuations int           `bound:"nonnegative" placeholder:"N" help:"Continuation prompts an autonomous run may queue (exit 3 when it needs more). Default: 3."`

	Gate        []string      `placeholder:"CMD" sep:"none" help:"Shell command that must exit 0 for the run to succeed, run in the session directory when the agent stops; a failure goes back to the agent (repeatable; implies --autonomous; exit 4 when gates fail or never run)."`
	GateRetries int           `bound:"nonnegative" default:"3" placeholder:"N" help:"Times a failing gate is sent back to the agent before the run fails."`
	GateTimeout time.Duration `bound:"nonnegative" default:"5m" placeholder:"DURATION" help:"Time a gate may run before it is killed with its process group."`
}

// LimitFlags are the limits a run stops at: 0 would not mean "no limit" but "the default"
// (with --autonomous) or nothing, so a limit given is a positive, finite number.
var LimitFlags = []string{"max-turns", "max-tokens", "max-time", "max-cost", "max-continuations"}

// Validate refuses a gate without a command (the bounds are the flags' bound tags).
func (f *LongRunFlags) Validate() error {
	if slices.Contains(f.Gate, "") {
		return fmt.Errorf("--gate needs a command")
	}
	return nil
}

// Apply puts the flags into the agent's configuration; gates run in dir. Limits given
// explicitly apply to every run; an autonomous run fills in the defaults of the others.
func (f *LongRunFlags) Apply(cfg Config, dir string) Config {
	cfg.Compaction = CompactionSettings{Auto: f.Compaction != "off", Reserve: f.CompactionReserve, Keep: f.CompactionKeep}
	cfg.Autonomous = f.Autonomous || len(f.Gate) > 0
	cfg.Limits = Limits{MaxTurns: f.MaxTurns, MaxTokens: f.MaxTokens, MaxTime: f.MaxTime, MaxContinuations: f.MaxContinuations, MaxCost: f.MaxCost}
	if cfg.Autonomous {
		cfg.Limits = cfg.Limits.OrDefaults()
	}
	cfg.Gates = GateSettings{Commands: f.Gate, Retries: f.GateRetries, Timeout: f.GateTimeout, Dir: dir}
	return cfg
}
