package stages

import (
	"io"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/telemetry"
)

// Otel is the stage of `filter otel` and of a run's --otel: it passes every frame on as it
// came and gives a telemetry.Mapper the lines it reads (those it Wants: a typed event of
// another type is not even encoded), then, at the end of each run, the run's verdict.
type Otel struct {
	mapper  *telemetry.Mapper
	opts    VerdictOptions
	verdict *Verdict
}

// NewOtel returns the stage feeding mapper; opts are the verdict's, for how each run ended.
func NewOtel(mapper *telemetry.Mapper, opts VerdictOptions) *Otel {
	return &Otel{mapper: mapper, opts: opts, verdict: NewVerdict(io.Discard, opts)}
}

func (o *Otel) Push(f *Frame, emit Emit) error {
	o.Observe(f)
	return emit(f)
}

// Observe maps frame f: what Push does without passing it on, for a run that writes no
// stream (text mode).
func (o *Otel) Observe(f *Frame) {
	typ := f.Type()
	if typ == codec.TypeSession && o.verdict.lines > 0 { // the next run of concatenated streams
		o.mapper.EndRun(o.runEnd())
		o.verdict = NewVerdict(io.Discard, o.opts)
	}
	o.verdict.Consume(f)
	if telemetry.Wants(typ) {
		o.mapper.Line(typ, f.Line())
	}
}

// Flush ends the last run.
func (o *Otel) Flush(Emit) error {
	o.mapper.EndRun(o.runEnd())
	return nil
}

func (o *Otel) runEnd() telemetry.RunEnd {
	s := o.verdict.Summary()
	return telemetry.RunEnd{Status: s.Status, Reason: s.Reason, ExitCode: s.ExitCode(), StopReason: s.StopReason}
}

// NextDeltas: the next deltas of a block are nothing to the mapper, and the verdict only
// counts them.
func (o *Otel) NextDeltas() NextDeltas {
	if o.verdict.NextDeltas() == DropDeltas {
		return PassDeltas
	}
	return PushDeltas
}

func (o *Otel) SkippedDeltas(run DeltaRun) error { return o.verdict.SkippedDeltas(run) }
