package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/agent"
)

// LongRunFlags are the flags of long unattended runs: compaction, autonomous runs with
// limits, and gates. RunCmd embeds them.
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

// limitFlags are the limits a run stops at: 0 would not mean "no limit" but "the default"
// (with --autonomous) or nothing, so a limit given is a positive, finite number.
var limitFlags = []string{"max-turns", "max-tokens", "max-time", "max-cost", "max-continuations"}

// checkGiven refuses the limits given on the command line that are not positive and
// finite: `--max-cost 0`, `--max-cost NaN`, `--max-turns 0`, `--max-time 0s`.
func (f *LongRunFlags) checkGiven(kctx *kong.Context) error {
	for _, p := range kctx.Path {
		if p.Flag != nil && slices.Contains(limitFlags, p.Flag.Name) {
			if err := agent.CheckLimit(p.Flag.Value.Target.Interface()); err != nil {
				return Fail(ExitUsage, fmt.Sprintf("--%s %s", p.Flag.Name, err))
			}
		}
	}
	return nil
}

// validate refuses a gate without a command (the bounds are the flags' bound tags).
func (f *LongRunFlags) validate() error {
	if slices.Contains(f.Gate, "") {
		return fmt.Errorf("--gate needs a command")
	}
	return nil
}

// apply puts the flags into the agent's configuration; gates run in dir. Limits given
// explicitly apply to every run; an autonomous run fills in the defaults of the others.
func (f *LongRunFlags) apply(cfg agent.Config, dir string) agent.Config {
	cfg.Compaction = agent.CompactionSettings{Auto: f.Compaction != "off", Reserve: f.CompactionReserve, Keep: f.CompactionKeep}
	cfg.Autonomous = f.Autonomous || len(f.Gate) > 0
	cfg.Limits = agent.Limits{MaxTurns: f.MaxTurns, MaxTokens: f.MaxTokens, MaxTime: f.MaxTime, MaxContinuations: f.MaxContinuations, MaxCost: f.MaxCost}
	if cfg.Autonomous {
		cfg.Limits = cfg.Limits.OrDefaults()
	}
	cfg.Gates = agent.GateSettings{Commands: f.Gate, Retries: f.GateRetries, Timeout: f.GateTimeout, Dir: dir}
	return cfg
}
