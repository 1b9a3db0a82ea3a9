package prompt

import (
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Images named with @ are image content after the prompt's text, which names them; text
// files are inlined; other arguments are the prompts.
func TestGatherFilesAndImages(t *testing.T) {
	dir := t.TempDir()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	write(t, dir, "a.png", png)
	write(t, dir, "notes.txt", "line\n")
	write(t, dir, "b.gif", "GIF89a...")
	ps, err := Gather(Input{Args: []string{"@a.png", "@notes.txt", "@b.gif", "look", "then this"}, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.First) != 3 {
		t.Fatalf("first prompt: %d blocks", len(ps.First))
	}
	text := ps.First[0].(*codec.TextContent).Text
	if want := "<file name=\"a.png\"></file>\n<file name=\"notes.txt\">\nline\n</file>\n<file name=\"b.gif\"></file>\n\nlook"; text != want {
		t.Errorf("text %q, want %q", text, want)
	}
	img := ps.First[1].(*codec.ImageContent)
	if img.MimeType != "image/png" || img.Data != base64.StdEncoding.EncodeToString([]byte(png)) {
		t.Errorf("image %+v", img)
	}
	if gif := ps.First[2].(*codec.ImageContent); gif.MimeType != "image/gif" {
		t.Errorf("gif %+v", gif)
	}
	if strings.Join(ps.Images, ",") != "a.png,b.gif" || strings.Join(ps.Rest, ",") != "then this" {
		t.Errorf("images %v, rest %v", ps.Images, ps.Rest)
	}
}

func TestImageType(t *testing.T) {
	for data, want := range map[string]string{
		"\x89PNG\r\n\x1a\nrest": "image/png", "\xff\xd8\xff\xe0": "image/jpeg", "GIF87a": "image/gif", "GIF89a": "image/gif",
		"RIFF\x00\x00\x00\x00WEBPVP8 ": "image/webp", "RIFF\x00\x00\x00\x00WAVE": "", "PNG": "", "": "", "%PDF-1.7": "",
	} {
		if got := codec.ImageType([]byte(data)); got != want {
			t.Errorf("ImageType(%q) = %q, want %q", data, got, want)
		}
	}
}

// Binary files that are not images, devices and files past the bound are refused, naming
// the file; nothing is sent as text.
func TestGatherRefuses(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "prog", "\x7fELF\x02\x01\x00\x00")
	write(t, dir, "latin1.txt", "caf\xe9")
	big, _ := os.Create(filepath.Join(dir, "big.txt"))
	big.Truncate(8<<20 + 1)
	big.Close()
	for arg, want := range map[string]string{
		"@prog":       "@prog is a binary file, neither text nor a png, jpeg, gif or webp image: it is not sent",
		"@latin1.txt": "@latin1.txt is a binary file",
		"@/dev/zero":  "cannot read @/dev/zero: /dev/zero is a device, not a regular file",
		"@big.txt":    "cannot read @big.txt: " + filepath.Join(dir, "big.txt") + " is larger than 8 MB, the most read",
		"@missing":    "cannot read @missing: open " + filepath.Join(dir, "missing") + ": no such file or directory",
	} {
		if _, err := Gather(Input{Args: []string{arg, "hi"}, Cwd: dir}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
}

// A silent stdin with a prompt argument is given up on, with a warning; without a prompt
// argument, or with "-", it is read to its end.
func TestGatherStdin(t *testing.T) {
	silent, w := io.Pipe()
	defer w.Close()
	var warned []string
	ps, err := Gather(Input{Args: []string{"hi"}, Stdin: silent, StdinWait: time.Millisecond, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil || ps.First[0].(*codec.TextContent).Text != "hi" {
		t.Fatalf("%v %+v", err, ps)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "stdin sent nothing within 1ms, so it is ignored: pass - (or --stdin) to wait for it") {
		t.Errorf("warnings %q", warned)
	}
	for _, in := range []Input{{Args: []string{"-", "hi"}}, {WaitForStdin: true, Args: []string{"hi"}}, {}} {
		r, w := io.Pipe()
		go func() {
			time.Sleep(20 * time.Millisecond) // later than StdinWait: only waiting reads it
			w.Write([]byte("piped"))
			w.Close()
		}()
		in.Stdin, in.StdinWait = r, time.Millisecond
		in.Warn = func(s string) { t.Errorf("%v: warned %q", in.Args, s) }
		ps, err := Gather(in)
		if err != nil || !strings.HasPrefix(ps.First[0].(*codec.TextContent).Text, "piped") {
			t.Errorf("%v: %v %+v", in.Args, err, ps)
		}
	}
	// Once it has begun, stdin is read to its end, bounded.
	_, err = Gather(Input{Args: []string{"hi"}, Stdin: io.LimitReader(zeros{}, 8<<20+1)})
	if err == nil || err.Error() != "stdin is larger than 8 MB, the most read as a prompt" {
		t.Errorf("large stdin: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func TestCheck(t *testing.T) {
	text := provider.Model{Provider: "p", ID: "text-only"}
	if err := (&Prompts{}).Check(text); err == nil || !strings.Contains(err.Error(), "no prompt") {
		t.Errorf("Check of no prompt = %v, want 'no prompt'", err)
	}
	withImage := &Prompts{First: []codec.Content{}, Images: []string{"shot.png"}}
	if err := withImage.Check(text); err == nil || !strings.Contains(err.Error(), "@shot.png is an image, and model p/text-only does not take images") {
		t.Errorf("Check of an image for a text model = %v", err)
	}
	if err := withImage.Check(provider.Model{Provider: "p", ID: "vision", Images: true}); err != nil {
		t.Errorf("Check of an image for a model that takes images = %v", err)
	}
}
