package stages_test

import (
	"bytes"
	"testing"

	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

func newRedact(tb testing.TB, opts redact.Options) stages.Stage {
	r, err := redact.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return stages.NewRedact(r)
}

// BenchmarkRedact: the default rules over the full form of f_long.
func BenchmarkRedact(b *testing.B) {
	benchStage(b, func() stages.Stage { return newRedact(b, redact.Options{}) }, fLong)
}

// fLongDeltas is the delta form of f_long, 20 times over: small lines, many of them.
func fLongDeltas(t testing.TB) []byte { return bytes.Repeat(deltas(t, fLong(t)), 20) }

// BenchmarkRedactDeltaForm and BenchmarkDeltasDeltaForm: redact and deltas over the delta
// form (the target: redact within 2× of deltas).
func BenchmarkRedactDeltaForm(b *testing.B) {
	benchStage(b, func() stages.Stage { return newRedact(b, redact.Options{}) }, fLongDeltas)
}

func BenchmarkDeltasDeltaForm(b *testing.B) {
	benchStage(b, func() stages.Stage { return stages.NewDeltas() }, fLongDeltas)
}
