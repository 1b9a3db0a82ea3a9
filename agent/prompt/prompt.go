// Package prompt gathers a run's prompts from its arguments, the files they name with @
// and stdin: text files are inlined, images become image content, and stdin is waited for
// only briefly when the prompt is given as an argument.
package prompt

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/userfile"
)

// StdinWait is how long a run with a prompt argument waits for the first byte of stdin
// before it goes on without it: CI runners often leave stdin open and silent.
const StdinWait = 3 * time.Second

// WaitingAfter is how long a wait for stdin without bound lasts before Input.Waiting is
// told.
const WaitingAfter = time.Second

// StdinArg is the argument that asks for stdin, waited for as long as it takes.
const StdinArg = "-"

// Input is where the prompts come from.
type Input struct {
	Args  []string  // the run's arguments: prompts, @FILE, and "-" for stdin
	Cwd   string    // relative @FILE paths are relative to it
	Stdin io.Reader // nil when there is none to read (a terminal)
	// WaitForStdin waits for stdin as long as it takes even with a prompt argument
	// (--stdin); without a prompt argument, or with "-", it is waited for anyway.
	WaitForStdin bool
	// StdinWait bounds the wait for stdin's first byte otherwise (default StdinWait).
	StdinWait time.Duration
	// Warn reports stdin ignored for its silence.
	Warn func(string)
	// Waiting, when not nil, is told when a wait for stdin without bound has lasted
	// WaitingAfter: the run is not stuck, it waits for its input.
	Waiting func()
	// Done, when closed, ends the wait for stdin (a stop signal): Gather returns ErrStopped.
	Done <-chan struct{}
	// Expand, when set, expands each prompt argument (a /template at its start), and stdin
	// when it is the whole prompt (no argument, no @FILE).
	Expand func(string) string
}

// ErrStopped is Gather's error when Done ended its wait for stdin.
var ErrStopped = errors.New("stopped while waiting for stdin")

// Prompts are the run's prompts: the first, with the files and stdin, and the ones that
// follow it.
type Prompts struct {
	First  []codec.Content // text, then the images in the order named; nil when there is no prompt
	Rest   []string
	Images []string // the @FILE names that are images
}

// Check refuses prompts a run cannot start with: none at all, or images for a model that
// takes none.
func (ps *Prompts) Check(model provider.Model) error {
	if ps.First == nil {
		return errors.New("no prompt: give one as an argument or on stdin")
	}
	if len(ps.Images) > 0 && !model.Images {
		return fmt.Errorf("@%s is an image, and model %s/%s does not take images: choose one that does, "+
			"or, if it does, say so in models.json (\"input\": [\"text\", \"image\"])", ps.Images[0], model.Provider, model.ID)
	}
	return nil
}

// Gather reads the files and stdin the arguments ask for into the prompts. An @FILE that
// cannot be read, is not a regular file, is larger than userfile.PromptFileMax or is binary
// (and not an image) is an error naming it.
func Gather(in Input) (*Prompts, error) {
	var prefix strings.Builder
	var prompts []string
	out := &Prompts{}
	var images []codec.Content
	wantStdin := in.WaitForStdin
	for _, arg := range in.Args {
		if arg == StdinArg {
			wantStdin = true
			continue
		}
		name, ok := fileArg(arg)
		if !ok {
			if in.Expand != nil {
				arg = in.Expand(arg)
			}
			prompts = append(prompts, arg)
			continue
		}
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(in.Cwd, path)
		}
		data, err := userfile.Read(path, userfile.PromptFileMax)
		if err != nil {
			return nil, fmt.Errorf("cannot read @%s: %w", name, err)
		}
		if mime := codec.ImageType(data); mime != "" {
			// The text names the image where it stands; the image follows the text.
			fmt.Fprintf(&prefix, "<file name=%q></file>\n", name)
			images = append(images, &codec.ImageContent{MimeType: mime, Data: base64.StdEncoding.EncodeToString(data)})
			out.Images = append(out.Images, name)
			continue
		}
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return nil, fmt.Errorf("@%s is a binary file, neither text nor a png, jpeg, gif or webp image: it is not sent", name)
		}
		fmt.Fprintf(&prefix, "<file name=%q>\n%s\n</file>\n", name, strings.TrimSuffix(string(data), "\n"))
	}
	if in.Stdin != nil {
		wait := in.StdinWait
		if wait == 0 {
			wait = StdinWait
		}
		if wantStdin || len(prompts) == 0 {
			wait = 0 // nothing else to run on: as long as it takes
		}
		text, err := readStdin(in.Stdin, wait, in.Warn, in.Waiting, in.Done)
		if err != nil {
			return nil, err
		}
		if s := strings.TrimSpace(text); s != "" {
			if len(prompts) == 0 && prefix.Len() == 0 && in.Expand != nil {
				s = in.Expand(s) // stdin is the prompt, as an argument would be (the upstream's too)
			}
			prefix.WriteString(s + "\n")
		}
	}
	if prefix.Len() > 0 {
		if len(prompts) == 0 {
			prompts = []string{strings.TrimSuffix(prefix.String(), "\n")}
		} else {
			prompts[0] = prefix.String() + "\n" + prompts[0]
		}
	}
	if len(prompts) == 0 {
		return out, nil
	}
	out.First = append([]codec.Content{&codec.TextContent{Text: prompts[0]}}, images...)
	out.Rest = prompts[1:]
	return out, nil
}

// fileArg reports the file an @FILE argument names. Only "@" and a path without spaces is a
// file: "@notes is a handle" is a prompt.
func fileArg(arg string) (string, bool) {
	name, ok := strings.CutPrefix(arg, "@")
	return name, ok && name != "" && !strings.ContainsAny(name, " \t\n")
}

// readStdin reads stdin to its end, at most userfile.PromptFileMax bytes. With wait > 0, a
// stdin that sends nothing within it is left unread (Warn says so) and "" returned. done
// ends the wait whenever it comes: a writer that never writes, or never closes, does not
// hold the process against a stop signal.
func readStdin(r io.Reader, wait time.Duration, warn func(string), waiting func(), done <-chan struct{}) (string, error) {
	type result struct {
		text string
		err  error
	}
	started := make(chan struct{})
	whole := make(chan result, 1)
	go func() { // left blocked on a silent stdin: the process ends without it
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			if n == 0 && err == nil {
				continue
			}
			close(started)
			switch {
			case errors.Is(err, io.EOF):
				whole <- result{string(buf[:n]), nil}
			case err != nil:
				whole <- result{"", fmt.Errorf("cannot read stdin: %w", err)}
			default:
				text, err := readRest(r, buf[:n])
				whole <- result{text, err}
			}
			return
		}
	}()
	var timeout, slow <-chan time.Time
	if wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		timeout = timer.C
	} else if waiting != nil {
		timer := time.NewTimer(WaitingAfter)
		defer timer.Stop()
		slow = timer.C
	}
	for slow != nil {
		select {
		case <-started:
		case <-slow:
			waiting()
		case <-done:
			return "", ErrStopped
		}
		slow = nil
	}
	select {
	case <-started:
	case <-timeout:
		if warn != nil {
			warn(fmt.Sprintf("stdin sent nothing within %s, so it is ignored: pass - (or --stdin) to wait for it", wait))
		}
		return "", nil
	case <-done:
		return "", ErrStopped
	}
	select {
	case res := <-whole:
		return res.text, res.err
	case <-done:
		return "", ErrStopped
	}
}

// readRest reads what follows head on stdin, the whole bounded by userfile.PromptFileMax.
func readRest(r io.Reader, head []byte) (string, error) {
	rest, err := userfile.ReadAtMost(r, "stdin", userfile.PromptFileMax-int64(len(head)))
	var tooLarge *userfile.TooLargeError
	if errors.As(err, &tooLarge) {
		return "", fmt.Errorf("stdin is larger than %s, the most read as a prompt", userfile.Size(userfile.PromptFileMax))
	}
	if err != nil {
		return "", fmt.Errorf("cannot read stdin: %w", err)
	}
	return string(head) + string(rest), nil
}
