package stages_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

func benchStage(b *testing.B, newStage func() stages.Stage, input func(testing.TB) []byte) {
	data := input(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := stages.Run([]stages.Input{{Reader: bytes.NewReader(data)}}, codec.NewLineWriter(io.Discard),
			newStage(), stages.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func fLong(t testing.TB) []byte { return referenceStreams(t)["f_long.jsonl.gz"] }

func BenchmarkDeltas(b *testing.B) {
	benchStage(b, func() stages.Stage { return stages.NewDeltas() }, fLong)
}

func BenchmarkExpand(b *testing.B) {
	benchStage(b, func() stages.Stage { return stages.NewExpand() }, func(t testing.TB) []byte {
		return deltas(t, fLong(t))
	})
}

func BenchmarkValid(b *testing.B) {
	data := fLong(b)
	ls := lines(data)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		for _, l := range ls {
			if !codec.Valid(l) {
				b.Fatal("invalid")
			}
		}
	}
}
