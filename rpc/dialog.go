package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/tidwall/gjson"
)

// Dialog methods: the questions the agent can put to the client.
const (
	DialogConfirm = "confirm" // yes or no
	DialogSelect  = "select"  // one of Options
	DialogInput   = "input"   // free text
)

// DefaultDialogTimeout is how long a dialog waits for its answer when it names no timeout.
// Every dialog times out, so an agent never waits forever on a client that does not answer.
const DefaultDialogTimeout = 60 * time.Second

// Dialog is a question for the client: an extension_ui_request frame.
type Dialog struct {
	Method      string   // DialogConfirm, DialogSelect or DialogInput
	Title       string   // the question
	Message     string   // confirm: more detail
	Options     []string // select: the choices
	Placeholder string   // input: a hint shown in the empty field
	// Timeout is how long the client has to answer (0: DefaultDialogTimeout). The request
	// carries it in milliseconds; an unanswered dialog is answered "no" when it expires.
	Timeout time.Duration
}

// Answer is the client's answer, or the "no" of a dialog nobody answered.
type Answer struct {
	Confirmed bool   // confirm: yes
	Value     string // select: the option chosen; input: the text entered
	// Cancelled: the client dismissed the dialog, or it timed out (TimedOut); a cancelled
	// confirm is a no, a cancelled select or input has no value.
	Cancelled bool
	TimedOut  bool
}

// ErrNoClient is a dialog asked once the client has gone (its input ended).
var ErrNoClient = errors.New("rpc: the client has gone: nobody can answer")

// Dialogs sends dialog requests and matches the client's extension_ui_response frames to
// them by id.
type Dialogs struct {
	write func(line []byte) error // one line to the client, serialized with everything else

	mu      sync.Mutex
	pending map[string]chan Answer
	closed  bool
}

func newDialogs(write func([]byte) error) *Dialogs {
	return &Dialogs{write: write, pending: map[string]chan Answer{}}
}

// Ask puts d to the client and waits for its answer. A dialog the client does not answer
// within its timeout is answered "no" (Cancelled and TimedOut, Confirmed false); so is one
// pending when the client's input ends. ctx ends the wait with ctx's error. Safe to call
// from any goroutine, several at once.
func (ds *Dialogs) Ask(ctx context.Context, d Dialog) (Answer, error) {
	switch d.Method {
	case DialogConfirm, DialogInput:
	case DialogSelect:
		if len(d.Options) == 0 {
			return Answer{}, errors.New("rpc: a select dialog needs options")
		}
	default:
		return Answer{}, fmt.Errorf("rpc: unknown dialog method %q (want confirm, select or input)", d.Method)
	}
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DefaultDialogTimeout
	}
	id := session.NewID()
	ch := make(chan Answer, 1)
	ds.mu.Lock()
	if ds.closed {
		ds.mu.Unlock()
		return Answer{Cancelled: true}, ErrNoClient
	}
	ds.pending[id] = ch
	ds.mu.Unlock()
	defer func() {
		ds.mu.Lock()
		delete(ds.pending, id)
		ds.mu.Unlock()
	}()
	if err := ds.write(appendDialog(nil, id, d, timeout)); err != nil {
		return Answer{Cancelled: true}, err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case a := <-ch:
		return a, nil
	case <-t.C:
		return Answer{Cancelled: true, TimedOut: true}, nil
	case <-ctx.Done():
		return Answer{Cancelled: true}, ctx.Err()
	}
}

// resolve delivers the client's extension_ui_response; it reports whether a dialog was
// waiting for it. An answer that does not match its declaration (dialogAnswer) is a no.
func (ds *Dialogs) resolve(v gjson.Result) bool {
	answer, err := decodeArgs[dialogAnswer](v)
	if err != nil {
		answer = &dialogAnswer{ID: v.Get("id").Str, Cancelled: true}
	}
	ds.mu.Lock()
	ch, ok := ds.pending[answer.ID]
	delete(ds.pending, answer.ID)
	ds.mu.Unlock()
	if !ok {
		return false
	}
	a := Answer{Cancelled: answer.Cancelled, Confirmed: answer.Confirmed, Value: answer.Value}
	if a.Cancelled {
		a.Confirmed, a.Value = false, ""
	}
	ch <- a
	return true
}

// close answers every pending dialog "no" and refuses new ones: the client has gone.
func (ds *Dialogs) close() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.closed = true
	for id, ch := range ds.pending {
		ch <- Answer{Cancelled: true}
		delete(ds.pending, id)
	}
}

// appendDialog encodes the extension_ui_request of d.
func appendDialog(dst []byte, id string, d Dialog, timeout time.Duration) []byte {
	dst = append(dst, `{"type":"extension_ui_request","id":`...)
	dst = codec.AppendString(dst, id)
	dst = append(dst, `,"method":`...)
	dst = codec.AppendString(dst, d.Method)
	dst = append(dst, `,"title":`...)
	dst = codec.AppendString(dst, d.Title)
	switch d.Method {
	case DialogConfirm:
		dst = append(dst, `,"message":`...)
		dst = codec.AppendString(dst, d.Message)
	case DialogSelect:
		dst = append(dst, `,"options":[`...)
		for i, o := range d.Options {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = codec.AppendString(dst, o)
		}
		dst = append(dst, ']')
	case DialogInput:
		if d.Placeholder != "" {
			dst = append(dst, `,"placeholder":`...)
			dst = codec.AppendString(dst, d.Placeholder)
		}
	}
	dst = append(dst, `,"timeout":`...)
	dst = codec.AppendInt(dst, timeout.Milliseconds())
	return append(dst, '}')
}
