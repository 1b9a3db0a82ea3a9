package stages

import "github.com/basecontext/base-context/codec"

// OutputOptions choose the stages of an agent run's output chain.
type OutputOptions struct {
	Header codec.Header // written ahead of the first event
	Redact *Redact      // nil: no redaction
	Deltas bool         // the delta form of streaming updates
}

// NewOutput builds the output chain of an agent's event stream in its only valid order: the
// header first, then redaction (it streams the full form's snapshots, so it comes before the
// delta form drops them), then the delta form. Every way a run writes its stream (a run's
// stdout, a resident run's events file, --mode rpc) uses this one chain.
func NewOutput(o OutputOptions) Stage {
	chain := []Stage{NewHeader(HeaderOptions{Header: o.Header})}
	if o.Redact != nil {
		chain = append(chain, o.Redact)
	}
	if o.Deltas {
		chain = append(chain, NewDeltas())
	}
	return Chain(chain...)
}
