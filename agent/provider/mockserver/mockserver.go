// Package mockserver plays the scripts of the scripted provider over the wire protocols of
// the real APIs (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Google
// Gemini), so that one
// script drives the offline provider and the real providers alike. Tests use it in process;
// the acceptance tests start it as a testscript command.
//
// A script entry with a status is sent as that HTTP error (its body, or the protocol's error
// envelope of its message, with its headers). A streamed entry is sent as the protocol's SSE
// stream; its faults (stream_error, cut_after, reset, no_finish, stall_after) are played as a
// real server would fail: an error event after HTTP 200, a body cut off, a connection reset,
// a stream that ends without a finish reason, a server that stops sending (after its
// headers, or after some chunks) and holds the connection open. Silent is a server that
// accepts connections and never answers.
package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/provider"
)

// Server is a running mock API server.
type Server struct {
	URL string // base URL without /v1, e.g. http://127.0.0.1:1234

	srv    *httptest.Server
	script *provider.Script

	mu       sync.Mutex
	requests []Request
}

// Request is a request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   json.RawMessage
}

// protocol is one wire protocol: how it wraps an error message, and how it streams a
// response.
type protocol struct {
	errorBody func(msg string) []byte
	stream    func(st *Stream)
}

// New starts a server playing script.
func New(script *provider.Script) *Server {
	s := &Server{script: script}
	mux := http.NewServeMux()
	for path, p := range map[string]protocol{
		"/v1/chat/completions": chatCompletions,
		"/v1/responses":        responses,
		"/v1/messages":         messages,
		"/v1beta/models/":      gemini, // models/{model}:streamGenerateContent
	} {
		mux.HandleFunc("POST "+path, s.handler(p))
	}
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.CloseClientConnections(); s.srv.Close() }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handler(p protocol) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if !json.Valid(body) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write(p.errorBody("mock server: the request body is not JSON"))
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()

		resp := s.script.Next()
		if resp.Status != 0 {
			for k, v := range resp.Headers {
				w.Header().Set(k, v)
			}
			out := resp.Body
			if out == nil {
				out = p.errorBody(resp.Message)
			}
			if len(out) > 0 && w.Header().Get("Content-Type") == "" {
				w.Header().Set("Content-Type", "application/json")
			}
			w.WriteHeader(resp.Status)
			w.Write(out)
			return
		}
		var req map[string]any
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		st := &Stream{Resp: resp, Request: req, w: w, r: r, n: len(s.Requests())}
		if resp.StallAfter == 0 {
			st.stall() // the headers, then nothing
			return
		}
		p.stream(st)
	}
}

// Stream is one streamed response being written.
type Stream struct {
	Resp    *provider.ScriptResponse
	Request map[string]any // the decoded request body

	w      http.ResponseWriter
	r      *http.Request
	n      int // the request's number, from 1
	chunks int
	cut    bool
}

// ID is an id for the response, unique within the server: prefix followed by the request
// number.
func (st *Stream) ID(prefix string) string { return fmt.Sprintf("%s%d", prefix, st.n) }

// Event writes one SSE event (no "event:" line when name is empty) with data encoded as
// JSON (a string or []byte is sent as it is), and flushes it.
func (st *Stream) Event(name string, data any) {
	if st.cut {
		return
	}
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	b.WriteString("data: ")
	switch d := data.(type) {
	case string:
		b.WriteString(d)
	case []byte:
		b.Write(d)
	default:
		enc, err := json.Marshal(d)
		if err != nil {
			panic(err)
		}
		b.Write(enc)
	}
	b.WriteString("\n\n")
	st.w.Write(b.Bytes())
	st.w.(http.Flusher).Flush()
}

// Chunk is called before each content chunk is written: it waits the entry's delay, and
// plays a cut when the entry's cut_after is reached. It returns false once the stream is
// cut: the protocol writes nothing more and returns.
func (st *Stream) Chunk() bool {
	if st.cut {
		return false
	}
	if st.chunks == st.Resp.CutAfter {
		st.Cut()
		return false
	}
	if st.chunks == st.Resp.StallAfter {
		st.stall()
		return false
	}
	st.chunks++
	if d := st.Resp.Delay; d > 0 {
		select {
		case <-time.After(d):
		case <-st.r.Context().Done():
			st.cut = true
			return false
		}
	}
	return true
}

// Ending is called when every chunk has been written. It returns false when the response
// must not finish normally: the stream was cut, or is cut now (cut_after equal to the
// number of chunks). A stream error and a missing finish are the protocol's to play: see
// Resp.StreamError and Resp.NoFinish.
func (st *Stream) Ending() bool {
	if st.cut {
		return false
	}
	if st.chunks == st.Resp.CutAfter {
		st.Cut()
		return false
	}
	if st.chunks == st.Resp.StallAfter {
		st.stall()
		return false
	}
	return true
}

// stall sends what was written so far (at least the headers) and then nothing, holding the
// connection open until the client gives up or the server closes.
func (st *Stream) stall() {
	st.cut = true
	st.w.(http.Flusher).Flush()
	<-st.r.Context().Done()
}

// Cut ends the body abruptly: a closed connection without the end of the chunked body, or
// with reset, a TCP reset.
func (st *Stream) Cut() {
	st.cut = true
	st.w.(http.Flusher).Flush()
	if st.Resp.Reset {
		if hj, ok := st.w.(http.Hijacker); ok {
			if conn, buf, err := hj.Hijack(); err == nil {
				buf.Flush()
				if tc, ok := conn.(*net.TCPConn); ok {
					tc.SetLinger(0)
				}
				conn.Close()
				return
			}
		}
	}
	panic(http.ErrAbortHandler) // closes the connection mid-body
}

// SilentServer accepts connections and never reads or answers: a server that hangs.
type SilentServer struct {
	URL string // http://127.0.0.1:PORT

	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	done  chan struct{}
}

// Silent starts a server that accepts connections on a loopback port and never answers.
func Silent() (*SilentServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &SilentServer{URL: "http://" + ln.Addr().String(), ln: ln, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
		}
	}()
	return s, nil
}

// Close stops listening and closes the connections it holds.
func (s *SilentServer) Close() {
	s.ln.Close()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

// ToolArgs is the whole argument text of a scripted tool call.
func ToolArgs(tc provider.ScriptToolCall) string {
	var b bytes.Buffer
	for _, a := range tc.Args {
		b.WriteString(a)
	}
	return b.String()
}

// Recording serves a recorded response body (see testdata/recordings) to every request: as
// an SSE stream, or with status != 0 as a JSON error body with that status.
func Recording(body []byte, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.Write(body)
	})
}
