package stages

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// The tests that compare a stage's output through the reader with its output on fresh
// frames (repeat_test.go) prove nothing when the shortcuts are never taken. On f_long, the
// full form of a long answer, every update but the first of its block repeats the update
// before but for its texts: the reader finds them so, and validate and deltas take them as
// the lines before them.
func TestFullUpdatesTakeTheShortcuts(t *testing.T) {
	data, err := os.ReadFile("../testdata/reference/f_long.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if data, err = io.ReadAll(zr); err != nil {
		t.Fatal(err)
	}
	w := &shortcutWatch{v: NewValidator(ValidateOptions{}), d: NewDeltas()}
	out := codec.NewBatchWriter(io.Discard)
	if _, err := Run([]Input{{Name: "f_long", Reader: bytes.NewReader(data)}}, out, w, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if w.v.Result().Violations != 0 || w.updates < 1000 {
		t.Fatalf("%d violations, %d updates", w.v.Result().Violations, w.updates)
	}
	t.Logf("of %d updates %d found repeated, %d passed by validate as the line before, %d converted by deltas as the line before", w.updates, w.repeated, w.quiet, w.converted)
	if w.repeated < w.updates*9/10 || w.quiet < w.updates*9/10 || w.converted < w.updates*9/10 {
		t.Errorf("of %d updates %d found repeated, %d passed by validate as the line before, %d converted by deltas as the line before",
			w.updates, w.repeated, w.quiet, w.converted)
	}
}

// shortcutWatch feeds a validator and a deltas stage and counts the updates they take as
// the lines before them.
type shortcutWatch struct {
	v                                   *Validator
	d                                   *Deltas
	updates, repeated, quiet, converted int
}

func (w *shortcutWatch) Push(f *Frame, emit Emit) error {
	if f.Type() != codec.TypeMessageUpdate {
		return w.v.Push(f, func(f *Frame) error { return w.d.Push(f, emit) })
	}
	w.updates++
	if f.index.RepeatsStrings() {
		w.repeated++
	}
	if f.repeatsBodiesOf(w.v.quiet, unreadStrings) {
		w.quiet++
	}
	converted, line := f.repeatsBodiesOf(w.d.converted, changingTexts), f.checkedLine()
	return w.v.Push(f, func(f *Frame) error {
		if err := w.d.Push(f, emit); err != nil {
			return err
		}
		if converted && w.d.converted == line && !f.indexed {
			w.converted++ // edited, and converted as the line before
		}
		return nil
	})
}

func (w *shortcutWatch) Flush(emit Emit) error { return w.v.Flush(emit) }
