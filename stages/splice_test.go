package stages_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// Read from files and written into a pipe, the lines a stage passes on as they came go from
// the files themselves (splice, on Linux): the output is the output written from memory,
// with the spans cut by edited, dropped and long lines, across two files, the first read
// from mid-file, and with lines longer than the reader's buffer.
func TestRunFromFilesIntoAPipe(t *testing.T) {
	var data bytes.Buffer
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range testdataStreams(t) {
			if !yield(name) {
				return
			}
		}
	})
	streams := testdataStreams(t)
	for _, name := range names {
		data.Write(streams[name])
		data.Write(deltas(t, streams[name]))
	}
	data.WriteString(`{"type":"tool_execution_end","toolCallId":"c","toolName":"bash","result":{"content":[{"type":"text","text":"` +
		strings.Repeat("x", 300<<10) + `"}]},"isError":false}` + "\r\n")
	data.WriteString("not json\n")
	for data.Len() < 2<<20 { // spans of many reads
		data.Write(data.Bytes()[:min(data.Len(), 1<<20)])
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl")
	if err := os.WriteFile(first, append([]byte("skipped by the reader's caller\n"), data.Bytes()...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, data.Bytes()[:data.Len()/3], 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, mk := range map[string]func() stages.Stage{
		"deltas": func() stages.Stage { return stages.NewDeltas() },
		"select": func() stages.Stage { return stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}}) },
		"select --not": func() stages.Stage {
			return stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}, Not: true})
		},
		"validate": func() stages.Stage { return stages.NewValidator(stages.ValidateOptions{}) },
		"redact":   func() stages.Stage { return stages.NewRedact(r) },
		"header":   func() stages.Stage { return stages.NewHeader(stages.HeaderOptions{Seq: true}) },
	} {
		inputs := func() []stages.Input {
			var ins []stages.Input
			for _, path := range []string{first, second} {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				ins = append(ins, stages.Input{Name: path, Reader: f})
			}
			if _, err := ins[0].Reader.(*os.File).Seek(int64(len("skipped by the reader's caller\n")), io.SeekStart); err != nil {
				t.Fatal(err)
			}
			return ins
		}
		var want bytes.Buffer
		if _, err := stages.Run(inputs(), codec.NewBatchWriter(&want), mk(), stages.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte)
		go func() { b, _ := io.ReadAll(pr); got <- b }()
		_, err = stages.Run(inputs(), codec.NewBatchWriter(pw), mk(), stages.RunOptions{})
		pw.Close()
		out := <-got
		pr.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want.Bytes()) {
			t.Fatalf("%s: into a pipe %d bytes, from memory %d: %s", name, len(out), want.Len(), firstDifference(string(out), want.String()))
		}
	}
}
