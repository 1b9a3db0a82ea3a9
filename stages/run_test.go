package stages_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// Run writes the lines a stage passes on as they were read straight from the reader's
// buffer, many at a time: these tests mix them with lines the stage edits, drops, holds and
// makes, across the reader's buffer boundaries and reads of every size, and require the
// output the stage's decisions make line by line.

// mixer decides by the line's number: it edits every third line, drops every fifth, holds
// every seventh until the next line has gone, and adds a line of its own after every
// eleventh. want is what it should write, line by line.
type mixer struct {
	held *stages.Frame
	want bytes.Buffer
	n    int
}

func (m *mixer) Push(f *stages.Frame, emit stages.Emit) error {
	m.n++
	line := f.Line()
	var err error
	switch {
	case m.n%5 == 0:
	case m.n%3 == 0:
		edited := fmt.Appendf(nil, `{"edited":%d,%s`, m.n, line[1:])
		m.want.Write(append(bytes.Clone(edited), '\n'))
		err = emit(f.Edited(edited))
	case m.n%7 == 0:
		m.held = f.Hold()
		return nil
	default:
		m.want.Write(append(bytes.Clone(line), '\n'))
		err = emit(f)
	}
	if err == nil && m.held != nil {
		m.want.Write(append(bytes.Clone(m.held.Line()), '\n'))
		err, m.held = emit(m.held), nil
	}
	if err == nil && m.n%11 == 0 {
		made := fmt.Appendf(nil, `{"type":"made","after":%d}`, m.n)
		m.want.Write(append(made, '\n'))
		err = emit(stages.LineFrame(made, 0))
	}
	return err
}

func (m *mixer) Flush(emit stages.Emit) error {
	if m.held == nil {
		return nil
	}
	m.want.Write(append(bytes.Clone(m.held.Line()), '\n'))
	return emit(m.held)
}

// chunky reads its input in pieces of random sizes, as a pipe does.
type chunky struct {
	data []byte
	rnd  *rand.Rand
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rnd.IntN(100<<10))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func TestRunWritesPassedLinesInOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var in bytes.Buffer
	for i := range 20000 {
		switch rnd.IntN(4) {
		case 0: // the next delta of a block, as the reader finds them
			fmt.Fprintf(&in, `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"%d "}}`+"\n", i)
		case 1:
			fmt.Fprintf(&in, `{"type":"turn_start","pad":"%s"}`+"\n", bytes.Repeat([]byte("x"), rnd.IntN(300)))
		case 2:
			fmt.Fprintf(&in, `{"type":"turn_end","n":%d}`+"\r\n", i)
		default:
			in.WriteString("not json\n")
		}
	}
	in.WriteString(`{"type":"agent_end","last":"no LF after me"}`)
	for _, chunked := range []bool{false, true} {
		var src io.Reader = bytes.NewReader(in.Bytes())
		if chunked {
			src = &chunky{in.Bytes(), rnd}
		}
		var out bytes.Buffer
		m := &mixer{}
		if _, err := stages.Run([]stages.Input{{Name: "in", Reader: src}}, codec.NewBatchWriter(&out), m, stages.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, want := out.Bytes(), m.want.Bytes(); !bytes.Equal(got, want) {
			g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
			for k := range min(len(g), len(w)) {
				if !bytes.Equal(g[k], w[k]) {
					t.Fatalf("chunked %v, line %d:\n got %q\nwant %q", chunked, k+1, g[k], w[k])
				}
			}
			t.Fatalf("chunked %v: %d lines, want %d", chunked, len(g), len(w))
		}
	}
}
