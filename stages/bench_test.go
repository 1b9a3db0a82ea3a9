package stages_test

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// filter is a `filter` subcommand's stage, or (text, verdict) its sink, made as the command
// line makes it.
type filter struct {
	name string
	new  func(tb testing.TB) stages.Stage
	sink func(w io.Writer) stages.Sink // nil for a stage
}

var filters = []filter{
	{name: "deltas", new: func(testing.TB) stages.Stage { return stages.NewDeltas() }},
	{name: "expand", new: func(testing.TB) stages.Stage { return stages.NewExpand() }},
	{name: "header", new: func(testing.TB) stages.Stage {
		return stages.NewHeader(stages.HeaderOptions{Stamp: true, Seq: true})
	}},
	{name: "select", new: func(testing.TB) stages.Stage {
		return stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}})
	}},
	{name: "text", sink: func(w io.Writer) stages.Sink { return stages.NewText(w, stages.TextOptions{}) }},
	{name: "text-follow", sink: func(w io.Writer) stages.Sink {
		return stages.NewText(w, stages.TextOptions{Follow: true})
	}},
	{name: "verdict", sink: func(w io.Writer) stages.Sink { return stages.NewVerdict(w, stages.VerdictOptions{}) }},
	{name: "validate", new: func(testing.TB) stages.Stage { return stages.NewValidator(stages.ValidateOptions{}) }},
	{name: "redact", new: func(tb testing.TB) stages.Stage { return newRedact(tb, redact.Options{}) }},
}

// run feeds data through the filter into a batch writer on w, as the command does.
func (f filter) run(tb testing.TB, data []byte, w io.Writer) {
	if f.sink == nil {
		runBytes(tb, f.new(tb), data, w)
		return
	}
	out := codec.NewBatchWriter(w)
	if _, err := stages.RunSink([]stages.Input{{Reader: bytes.NewReader(data)}}, out, f.sink(out),
		stages.RunOptions{}); err != nil {
		tb.Fatal(err)
	}
}

// runBytes feeds data through st into a batch writer on w, as a filter does.
func runBytes(tb testing.TB, st stages.Stage, data []byte, w io.Writer) {
	if _, err := stages.Run([]stages.Input{{Reader: bytes.NewReader(data)}}, codec.NewBatchWriter(w),
		st, stages.RunOptions{}); err != nil {
		tb.Fatal(err)
	}
}

// forms are the two forms of f_long: its header, and its run (everything after the header),
// which may be repeated after the header to make a longer valid stream.
func forms(tb testing.TB) map[string][2][]byte {
	formsOnce.Do(func() {
		full := fLong(tb)
		formsMade = map[string][2][]byte{}
		for name, data := range map[string][]byte{"full": full, "delta": deltas(tb, full)} {
			i := bytes.IndexByte(data, '\n') + 1
			formsMade[name] = [2][]byte{data[:i], data[i:]}
		}
	})
	return formsMade
}

var (
	formsOnce sync.Once
	formsMade map[string][2][]byte
)

// repeated is f_long's header and its run n times over, in the form asked for (the delta
// form numbers the messages of the whole stream).
func repeated(tb testing.TB, form string, n int) []byte {
	full := forms(tb)["full"]
	data := append(bytes.Clone(full[0]), bytes.Repeat(full[1], n)...)
	if form == "delta" {
		return deltas(tb, data)
	}
	return data
}

// streamingOnly is the stream up to the first text_start, then its text deltas n times over:
// the lines that make up most of a stream, and that arrive one by one while a model answers.
func streamingOnly(tb testing.TB, form string, n int) []byte {
	data := repeated(tb, form, 1)
	i := bytes.Index(data, []byte(`"text_start"`))
	i += bytes.IndexByte(data[i:], '\n') + 1
	var updates []byte
	for _, l := range lines(data[i:]) {
		if bytes.Contains(l, []byte(`{"type":"text_delta"`)) {
			updates = append(append(updates, l...), '\n')
		}
	}
	return append(data[:i:i], bytes.Repeat(updates, n)...)
}

// allocsPerLine counts the allocations of a filter over make(1) and make(3) (a fresh stage
// or sink each time, so that both pay for the same setup) and returns those of the extra
// lines.
func allocsPerLine(t *testing.T, run func(testing.TB, []byte, io.Writer), make func(n int) []byte) (perLine float64, once, three float64) {
	one, more := make(1), make(3)
	count := func(data []byte) float64 {
		return testing.AllocsPerRun(1, func() { run(t, data, io.Discard) })
	}
	once, three = count(one), count(more)
	extra := bytes.Count(more, []byte("\n")) - bytes.Count(one, []byte("\n"))
	return (three - once) / float64(extra), once, three
}

// Every filter streams without allocating: a stream of text deltas, in either form, costs no
// allocation per line. What grows with the message (its snapshot, the text held for it) grows
// geometrically, a few allocations over thousands of lines: at most one per 200 lines is
// allowed for that, where one allocation per line would show as 1.
func TestFiltersAllocateNothingPerUpdate(t *testing.T) {
	for _, form := range []string{"full", "delta"} {
		for _, f := range filters {
			t.Run(form+"/"+f.name, func(t *testing.T) {
				perLine, once, three := allocsPerLine(t, f.run, func(n int) []byte { return streamingOnly(t, form, n) })
				t.Logf("%.0f allocations with the deltas once, %.0f with them three times: %.4f per line", once, three, perLine)
				if perLine >= 0.005 {
					t.Errorf("%.4f allocations per line", perLine)
				}
			})
		}
	}
}

// Over whole runs, messages and tool calls may cost a few allocations (a final message is
// decoded, a tool's name kept, a message's buffers grow), but lines do not: fewer than one
// allocation per 50 lines of f_long, whose run has 2,010 lines.
func TestFiltersAllocateNothingPerLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every filter over f_long three times")
	}
	for _, form := range []string{"full", "delta"} {
		for _, f := range filters {
			t.Run(form+"/"+f.name, func(t *testing.T) {
				perLine, once, three := allocsPerLine(t, f.run, func(n int) []byte { return repeated(t, form, n) })
				t.Logf("%.0f allocations for the run once, %.0f for it three times: %.4f per line", once, three, perLine)
				if perLine >= 0.02 {
					t.Errorf("%.0f allocations for the run once, %.0f for it three times: %.4f per line",
						once, three, perLine)
				}
			})
		}
	}
}

// benchFilter measures a filter on one form of f_long, the run repeated to about 20 MB,
// and reports its allocations per line.
func benchFilter(b *testing.B, filter string, form string) {
	fm := forms(b)[form]
	data := fm[0]
	for len(data) < 20<<20 {
		data = append(data, fm[1]...)
	}
	lines := bytes.Count(data, []byte("\n"))
	for _, f := range filters {
		if f.name != filter {
			continue
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			f.run(b, data, io.Discard)
		}
		b.StopTimer()
		b.ReportMetric(float64(lines), "lines/op")
		return
	}
	b.Fatalf("no filter %s", filter)
}

func BenchmarkFilters(b *testing.B) {
	for _, form := range []string{"full", "delta"} {
		for _, f := range filters {
			b.Run(form+"/"+f.name, func(b *testing.B) { benchFilter(b, f.name, form) })
		}
	}
}

func benchStage(b *testing.B, newStage func() stages.Stage, input func(testing.TB) []byte) {
	benchRun(b, filter{new: func(testing.TB) stages.Stage { return newStage() }}.run, input)
}

// benchRun measures run, a filter's stage or sink, over input.
func benchRun(b *testing.B, run func(testing.TB, []byte, io.Writer), input func(testing.TB) []byte) {
	data := input(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, data, io.Discard)
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

// BenchmarkTinyLines: the per-line cost of a filter, on lines of a few bytes (the 10-million-
// line stream of scripts/bench-filters).
func BenchmarkTinyLines(b *testing.B) {
	data := bytes.Repeat([]byte("{\"type\":\"turn_start\"}\n{\"type\":\"turn_end\"}\n"), 50_000)
	for _, name := range []string{"deltas", "select", "validate"} {
		for _, f := range filters {
			if f.name != name {
				continue
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for range b.N {
					runBytes(b, f.new(b), data, io.Discard)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/line")
			})
		}
	}
}
