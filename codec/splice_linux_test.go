package codec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A span the reader returned is found in its file (FileRange), and a writer into a pipe sends
// it from there (SpliceFrom): the same bytes, after what the writer held. Into anything
// but a pipe it says it cannot, and writes nothing; a file cut since it was read is an error.
func TestSpliceFromFileRange(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "in.jsonl")
	data := bytes.Repeat([]byte(`{"type":"turn_start"}`+"\n"), 20000) // 440 KB: more than one read
	if err := os.WriteFile(name, append([]byte("skipped\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Seek(int64(len("skipped\n")), io.SeekStart); err != nil { // a reader that starts mid-file
		t.Fatal(err)
	}
	lr := NewLineReader(in)
	for i := range int64(3) {
		line, err := lr.ReadRawLine()
		if err != nil {
			t.Fatal(err)
		}
		if _, off, ok := lr.FileRange(line); !ok || off != 8+22*i {
			t.Fatalf("line %d: %v at %d", i, ok, off)
		}
	}
	for range 15000 { // into the second read
		if _, err := lr.ReadRawLine(); err != nil {
			t.Fatal(err)
		}
	}
	last, _ := lr.ReadRawLine()
	if _, _, ok := lr.FileRange([]byte("elsewhere")); ok {
		t.Fatal("bytes not in the reader's buffer were found in its file")
	}
	f, off, ok := lr.FileRange(last)
	if !ok || f != in || off != 8+22*15003 {
		t.Fatalf("the last line: %v at %d, want %d", ok, off, 8+22*15003)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	lw := NewBatchWriter(w)
	lw.WriteLine([]byte("held"))
	if done, err := lw.SpliceFrom(in, off, len(last)); !done || err != nil {
		t.Fatalf("into a pipe: %v %v", done, err)
	}
	lw.Flush()
	w.Close()
	if b := <-got; string(b) != "held\n"+string(last) {
		t.Fatalf("the pipe got %q", b)
	}

	file, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	fw := NewBatchWriter(file)
	if done, err := fw.SpliceFrom(in, off, len(last)); done || err != nil {
		t.Fatalf("into a file: %v %v", done, err)
	}
	if !fw.noSplice {
		t.Fatal("a writer refused a splice would try again")
	}

	r2, w2, _ := os.Pipe()
	defer r2.Close()
	go io.Copy(io.Discard, r2)
	if err := os.Truncate(name, 100); err != nil {
		t.Fatal(err)
	}
	if done, err := NewBatchWriter(w2).SpliceFrom(in, off, len(last)); !done || err == nil {
		t.Fatalf("from a file cut since: %v %v", done, err)
	}
	w2.Close()
}
