package session

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longSession writes the session of scripts/bench-sessions: a model change and n messages
// of about 26 KB each, alternately user and assistant.
func longSession(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, "long.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	pad := strings.Repeat("x", 26000)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"long","timestamp":"2025-12-01T00:00:00.000Z","cwd":"/p1"}`+"\n")
	fmt.Fprintf(w, `{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2025-12-01T00:00:00.000Z","provider":"script","modelId":"default"}`+"\n")
	p := "00000001"
	for m := 2; m < n+2; m++ {
		var msg string
		if m%2 == 0 {
			msg = `{"role":"user","content":[{"type":"text","text":"` + pad + `"}],"timestamp":1}`
		} else {
			msg = `{"role":"assistant","content":[{"type":"text","text":"` + pad + `"}],"api":"script","provider":"script","model":"default","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}`
		}
		fmt.Fprintf(w, `{"type":"message","id":"%08d","parentId":"%s","timestamp":"2025-12-01T00:00:00.000Z","message":%s}`+"\n", m, p, msg)
		p = fmt.Sprintf("%08d", m)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return path
}

// BenchmarkResumeLong loads the 106 MB session of scripts/bench-sessions (4,000 messages)
// for appending, with its context, as --resume does.
func BenchmarkResumeLong(b *testing.B) {
	path := longSession(b, b.TempDir(), 4000)
	b.ReportAllocs()
	for b.Loop() {
		f, l, err := Resume(path)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(l.Context()); n != 4000 {
			b.Fatalf("%d messages", n)
		}
		f.Close()
	}
}
