package tools

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

func TestReadText(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "hello.txt", "hello from the fixture file\n")
	res := mustCall(t, opts, "read", `{"path":"hello.txt"}`)
	if len(res.Content) != 1 || resultText(res) != "hello from the fixture file\n" || res.Details != nil {
		t.Fatalf("read = %#v", res)
	}
	writeFile(t, opts.Cwd, "nonl.txt", "a\nb")
	if got := resultText(mustCall(t, opts, "read", `{"path":"nonl.txt"}`)); got != "a\nb" {
		t.Errorf("read = %q", got)
	}
	writeFile(t, opts.Cwd, "empty.txt", "")
	if got := resultText(mustCall(t, opts, "read", `{"path":"empty.txt"}`)); got != "(empty file)" {
		t.Errorf("read empty = %q", got)
	}
}

func TestReadOffsetLimit(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "f.txt", numberedLines(1, 10))
	cases := []struct{ args, want string }{
		{`{"path":"f.txt","offset":3,"limit":2}`, "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"},
		{`{"path":"f.txt","offset":9}`, "line 9\nline 10\n"},
		{`{"path":"f.txt","offset":10,"limit":5}`, "line 10\n"},
		{`{"path":"f.txt","limit":10}`, numberedLines(1, 10)},
		{`{"path":"f.txt","limit":9}`, numberedLines(1, 9) + "\n[1 more lines in file. Use offset=10 to continue.]"},
	}
	for _, c := range cases {
		if got := resultText(mustCall(t, opts, "read", c.args)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
	if got := mustFail(t, opts, "read", `{"path":"f.txt","offset":11}`); got != "offset 11 is beyond the end of f.txt (10 lines)" {
		t.Errorf("offset beyond end: %s", got)
	}
}

func TestReadErrors(t *testing.T) {
	opts := testOptions(t)
	if got := mustFail(t, opts, "read", `{"path":"missing.txt"}`); got != "file not found: missing.txt" {
		t.Errorf("missing: %s", got)
	}
	writeFile(t, opts.Cwd, "dir/x", "")
	if got := mustFail(t, opts, "read", `{"path":"dir"}`); !strings.Contains(got, "is a directory") {
		t.Errorf("dir: %s", got)
	}
	writeFile(t, opts.Cwd, "bin.dat", "abc\x00\x01\x02def")
	if got := mustFail(t, opts, "read", `{"path":"bin.dat"}`); !strings.Contains(got, "binary") {
		t.Errorf("binary: %s", got)
	}
}

func TestReadTruncatesLines(t *testing.T) {
	opts := testOptions(t)
	content := numberedLines(1, 5234)
	writeFile(t, opts.Cwd, "big.txt", content)
	res := mustCall(t, opts, "read", `{"path":"big.txt"}`)
	d := checkFullOutput(t, opts, res, content)
	got := resultText(res)
	want := numberedLines(1, 2000) + "\n[Output truncated: showing lines 1-2000 of 5234. Use offset=2001 to continue. Full output: " + d.FullOutputPath + "]"
	if got != want {
		t.Fatalf("got ...%q", tail(got, 200))
	}
	if tr := d.Truncation; tr.TotalLines != 5234 || tr.TotalBytes != int64(len(content)) || tr.OutputLines != 2000 ||
		tr.OutputBytes != int64(len(numberedLines(1, 2000))) {
		t.Errorf("truncation = %+v", *tr)
	}

	// From an offset, the note counts lines of the file and the full output is the selection.
	res = mustCall(t, opts, "read", `{"path":"big.txt","offset":3001,"limit":2500}`)
	d = checkFullOutput(t, opts, res, numberedLines(3001, 5234))
	if got := resultText(res); !strings.HasPrefix(got, "line 3001\n") ||
		!strings.Contains(got, "line 5000\n\n[Output truncated: showing lines 3001-5000 of 5234. Use offset=5001 to continue.") {
		t.Errorf("got ...%q", tail(got, 200))
	}
	if d.Truncation.TotalLines != 2234 || d.Truncation.OutputLines != 2000 {
		t.Errorf("truncation = %+v", *d.Truncation)
	}
}

func TestReadTruncatesBytes(t *testing.T) {
	opts := testOptions(t)
	line := strings.Repeat("z", 199) + "\n"
	content := strings.Repeat(line, 400) // 80,000 bytes
	writeFile(t, opts.Cwd, "wide.txt", content)
	res := mustCall(t, opts, "read", `{"path":"wide.txt"}`)
	d := checkFullOutput(t, opts, res, content)
	if got := resultText(res); !strings.HasPrefix(got, strings.Repeat(line, 256)+"\n[Output truncated: showing lines 1-256 of 400 (50KB limit). Use offset=257 to continue.") {
		t.Errorf("got ...%q", tail(got, 200))
	}
	if d.Truncation.OutputBytes != 256*200 || d.Truncation.TotalBytes != 80000 {
		t.Errorf("truncation = %+v", *d.Truncation)
	}

	// One line longer than the byte limit.
	writeFile(t, opts.Cwd, "long.txt", strings.Repeat("q", 70000)+"\nshort\n")
	res = mustCall(t, opts, "read", `{"path":"long.txt"}`)
	got := resultText(res)
	if !strings.HasPrefix(got, strings.Repeat("q", MaxBytes)+"\n\n[Output truncated: line 1 is longer than 50KB") {
		t.Errorf("got ...%q", tail(got, 200))
	}
}

func TestReadImages(t *testing.T) {
	opts := testOptions(t)
	images := []struct{ name, data, mime string }{
		{"pic.txt", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR rest", "image/png"}, // named .txt: content decides
		{"photo.bin", "\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"},
		{"anim", "GIF89a\x01\x00\x01\x00\x00\x00\x00;", "image/gif"},
		{"x.webp", "RIFF\x1a\x00\x00\x00WEBPVP8 \x00\x00", "image/webp"},
	}
	for _, img := range images {
		writeFile(t, opts.Cwd, img.name, img.data)
		res := mustCall(t, opts, "read", `{"path":"`+img.name+`"}`)
		if len(res.Content) != 2 {
			t.Fatalf("%s: %d blocks", img.name, len(res.Content))
		}
		ic, ok := res.Content[1].(*codec.ImageContent)
		if !ok {
			t.Fatalf("%s: second block is %T", img.name, res.Content[1])
		}
		raw, err := base64.StdEncoding.DecodeString(ic.Data)
		if err != nil || string(raw) != img.data || ic.MimeType != img.mime {
			t.Errorf("%s: mime %s, data ok %v", img.name, ic.MimeType, string(raw) == img.data)
		}
		if txt := resultText(res); !strings.Contains(txt, img.mime) {
			t.Errorf("%s: text %q", img.name, txt)
		}
	}
	// A text file with an image name is text.
	writeFile(t, opts.Cwd, "fake.png", "not really a png\n")
	if res := mustCall(t, opts, "read", `{"path":"fake.png"}`); len(res.Content) != 1 || resultText(res) != "not really a png\n" {
		t.Errorf("fake.png = %#v", res.Content)
	}
}
