package control

import (
	"bytes"
	"testing"
)

// followChunks feeds data to a follower in the chunks that cuts mark, as reads of a file
// that grows would return it, and returns what it wrote.
func followChunks(t testing.TB, data []byte, cuts []byte, skip bool) []byte {
	var out bytes.Buffer
	fl := &follower{out: &out, skip: skip}
	for len(data) > 0 {
		n := 1
		if len(cuts) > 0 {
			n = int(cuts[0])%len(data) + 1
			cuts = cuts[1:]
		} else {
			n = len(data)
		}
		if err := fl.emit(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	return out.Bytes()
}

// A follower writes whole lines only, each exactly once and in order, however the file's
// growth is cut into reads; a line still being written waits for its end.
func FuzzFollowerLines(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n{\"c\""), []byte{0, 3, 1, 200})
	f.Add([]byte("\n\nx\n"), []byte{})
	f.Add([]byte("partial"), []byte{2})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		want := data[:bytes.LastIndexByte(data, '\n')+1]
		if got := followChunks(t, data, cuts, false); !bytes.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		// Joining in the middle of a line (attach --from-now) drops that line's rest.
		if i := bytes.IndexByte(want, '\n'); i >= 0 {
			if got := followChunks(t, data, cuts, true); !bytes.Equal(got, want[i+1:]) {
				t.Fatalf("skipping: got %q, want %q", got, want[i+1:])
			}
		}
	})
}
