package rpc

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// lineSink collects the lines a server writes and tells when one arrives.
type lineSink struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func newSink() *lineSink { return &lineSink{lines: make(chan string, 64)} }

func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	for {
		i := bytes.IndexByte(s.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		s.lines <- string(s.buf.Next(i + 1)[:i])
	}
}

func (s *lineSink) next(t *testing.T) gjson.Result {
	t.Helper()
	select {
	case l := <-s.lines:
		return gjson.Parse(l)
	case <-time.After(10 * time.Second):
		t.Fatal("no line")
	}
	return gjson.Result{}
}

type answered struct {
	a   Answer
	err error
}

func ask(ds *Dialogs, ctx context.Context, d Dialog) chan answered {
	ch := make(chan answered, 1)
	go func() {
		a, err := ds.Ask(ctx, d)
		ch <- answered{a, err}
	}()
	return ch
}

// The client answers through the server's command input, matched by the request's id.
func TestAskIsAnsweredByTheClient(t *testing.T) {
	sink := newSink()
	s := NewServer(nil, sink)
	ctx := context.Background()

	res := ask(s.Dialogs, ctx, Dialog{Method: DialogConfirm, Title: "Run rm -rf build?", Message: "It deletes the folder.", Timeout: time.Minute})
	req := sink.next(t)
	if req.Get("type").Str != "extension_ui_request" || req.Get("method").Str != "confirm" || req.Get("title").Str != "Run rm -rf build?" ||
		req.Get("message").Str != "It deletes the folder." || req.Get("timeout").Int() != 60000 || req.Get("id").Str == "" {
		t.Fatalf("request: %s", req.Raw)
	}
	s.handle([]byte(`{"type":"extension_ui_response","id":"`+req.Get("id").Str+`","confirmed":true}`), 1)
	if got := <-res; got.err != nil || !got.a.Confirmed || got.a.Cancelled {
		t.Errorf("confirm: %+v", got)
	}

	res = ask(s.Dialogs, ctx, Dialog{Method: DialogSelect, Title: "Which?", Options: []string{"Allow", "Block"}})
	req = sink.next(t)
	if req.Get("options").Raw != `["Allow","Block"]` || req.Get("timeout").Int() != DefaultDialogTimeout.Milliseconds() {
		t.Fatalf("select request: %s", req.Raw)
	}
	s.handle([]byte(`{"type":"extension_ui_response","id":"`+req.Get("id").Str+`","value":"Block"}`), 2)
	if got := <-res; got.a.Value != "Block" {
		t.Errorf("select: %+v", got)
	}

	res = ask(s.Dialogs, ctx, Dialog{Method: DialogInput, Title: "Name?", Placeholder: "a name"})
	req = sink.next(t)
	if req.Get("placeholder").Str != "a name" {
		t.Fatalf("input request: %s", req.Raw)
	}
	s.handle([]byte(`{"type":"extension_ui_response","id":"`+req.Get("id").Str+`","cancelled":true,"confirmed":true}`), 3)
	if got := <-res; !got.a.Cancelled || got.a.Confirmed || got.a.Value != "" {
		t.Errorf("cancelled input: %+v", got)
	}
}

// Nobody answers: the dialog times out to "no".
func TestAskTimesOutToNo(t *testing.T) {
	sink := newSink()
	s := NewServer(nil, sink)
	res := ask(s.Dialogs, context.Background(), Dialog{Method: DialogConfirm, Title: "Allow?", Timeout: time.Millisecond})
	req := sink.next(t)
	got := <-res
	if got.err != nil || got.a.Confirmed || !got.a.Cancelled || !got.a.TimedOut {
		t.Errorf("timed out: %+v", got)
	}
	// A late answer finds no dialog and changes nothing.
	if s.Dialogs.resolve(gjson.Parse(`{"id":"` + req.Get("id").Str + `","confirmed":true}`)) {
		t.Error("a late answer was taken")
	}
}

// The client's input ended: pending dialogs are answered "no", new ones refused.
func TestAskWhenTheClientHasGone(t *testing.T) {
	sink := newSink()
	s := NewServer(nil, sink)
	res := ask(s.Dialogs, context.Background(), Dialog{Method: DialogConfirm, Title: "Allow?"})
	sink.next(t)
	s.Dialogs.close()
	if got := <-res; got.a.Confirmed || !got.a.Cancelled {
		t.Errorf("pending at close: %+v", got)
	}
	if _, err := s.Dialogs.Ask(context.Background(), Dialog{Method: DialogConfirm, Title: "Again?"}); !errors.Is(err, ErrNoClient) {
		t.Errorf("after close: %v", err)
	}
}

func TestAskRefusesBadDialogs(t *testing.T) {
	s := NewServer(nil, newSink())
	for _, d := range []Dialog{{Method: "editor"}, {Method: DialogSelect, Title: "none"}} {
		if _, err := s.Dialogs.Ask(context.Background(), d); err == nil {
			t.Errorf("%+v: no error", d)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a, err := s.Dialogs.Ask(ctx, Dialog{Method: DialogConfirm, Title: "?"}); !errors.Is(err, context.Canceled) || a.Confirmed {
		t.Errorf("cancelled context: %+v %v", a, err)
	}
}
