package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basecontext/base-context/codec"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options are what the servers of a run share.
type Options struct {
	Cwd    string // where a stdio server runs; its cwd is relative to it
	LogDir string // each stdio server's stderr goes to <LogDir>/mcp-<name>.log; "" discards it
	// Version is base-context's, told to the servers.
	Version string
	// Connect replaces the transports (tests: the SDK's in-memory transports); nil: a
	// command or a streamable HTTP client, as the configuration says.
	Connect func(s *Server) (sdk.Transport, error)
}

// Set is the servers of a run, started.
type Set struct {
	servers []*server
	tools   []*remoteTool // offered, in server order, then the server's order
	notes   []string      // tools refused at naming
}

type server struct {
	cfg  *Server
	opts Options

	mu       sync.Mutex
	conn     *connection // nil when it failed or is disabled
	status   codec.MCPServerStatus
	restarts int
	log      *os.File
	listed   []*sdk.Tool // the tools the configuration offers, as the server listed them

	tokens   sync.Map // progress token → func(*sdk.ProgressNotificationParams)
	nextCall atomic.Int64
}

// connection is one session with a server, and whether it has ended.
type connection struct {
	session *sdk.ClientSession
	ended   chan struct{}
	lost    atomic.Bool // a call saw the connection end before Wait did
}

func (c *connection) alive() bool {
	if c.lost.Load() {
		return false
	}
	select {
	case <-c.ended:
		return false
	default:
		return true
	}
}

// Start connects every enabled server at once, each within its startupTimeout, lists their
// tools and names them. It returns when every server is connected or has failed.
func Start(ctx context.Context, servers []*Server, opts Options) *Set {
	set := &Set{}
	var wg sync.WaitGroup
	for _, cfg := range servers {
		s := &server{cfg: cfg, opts: opts}
		s.status = codec.MCPServerStatus{Name: cfg.Name, Transport: cfg.Transport()}
		set.servers = append(set.servers, s)
		if cfg.Disabled() {
			s.status.Status = "disabled"
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.start(ctx)
		}()
	}
	wg.Wait()
	set.name()
	return set
}

// start connects the server and lists its tools, setting its status.
func (s *server) start(ctx context.Context) {
	conn, tools, err := s.connect(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.status.Status, s.status.Error = "failed", err.Error()
		return
	}
	s.conn = conn
	s.status.Status = "connected"
	s.status.Tools = int64(len(tools))
	s.listed = tools
}

// connect opens a session within the startup timeout and lists the tools the configuration
// offers.
func (s *server) connect(ctx context.Context) (*connection, []*sdk.Tool, error) {
	timeout := s.cfg.StartupTimeout.or(DefaultStartupTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	transport, err := s.transport()
	if err != nil {
		return nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "base-context", Version: s.opts.Version}, &sdk.ClientOptions{
		Capabilities:                &sdk.ClientCapabilities{},
		ProgressNotificationHandler: s.progress,
	})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, nil, s.startError(ctx, timeout, "initialize", err)
	}
	conn := &connection{session: session, ended: make(chan struct{})}
	go func() {
		session.Wait()
		close(conn.ended)
	}()
	var offered []*sdk.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, nil, s.startError(ctx, timeout, "tools/list", err)
		}
		if s.cfg.offers(t.Name) {
			offered = append(offered, t)
		}
	}
	return conn, offered, nil
}

// startError says why a start failed: the timeout, or the error, with where the stderr of
// the server went.
func (s *server) startError(ctx context.Context, timeout time.Duration, request string, err error) error {
	var notRun *exec.Error
	switch {
	case errors.As(err, &notRun), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return err // it never ran: nothing in the log
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("no answer to %s within %s (startupTimeout)", request, timeout)
	case s.cfg.URL == "" && (errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed)):
		err = fmt.Errorf("the server exited before answering %s", request)
	}
	if s.log != nil {
		err = fmt.Errorf("%w (its stderr: %s)", err, s.log.Name())
	}
	return err
}

// transport is the configured way to reach the server: a command whose stderr goes to the
// log, or a streamable HTTP client sending the headers.
func (s *server) transport() (sdk.Transport, error) {
	if s.opts.Connect != nil {
		return s.opts.Connect(s.cfg)
	}
	if s.cfg.URL != "" {
		client := &http.Client{Transport: headers{s.cfg.Headers, http.DefaultTransport}}
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, DisableStandaloneSSE: true}, nil
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.opts.Cwd
	if s.cfg.Cwd != "" {
		cmd.Dir = filepath.Join(s.opts.Cwd, s.cfg.Cwd)
		if filepath.IsAbs(s.cfg.Cwd) {
			cmd.Dir = s.cfg.Cwd
		}
	}
	cmd.Env = os.Environ()
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = io.Discard
	if s.opts.LogDir != "" && s.log == nil {
		if err := os.MkdirAll(s.opts.LogDir, 0o700); err == nil {
			s.log, _ = os.OpenFile(filepath.Join(s.opts.LogDir, "mcp-"+sanitize(s.cfg.Name)+".log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		}
	}
	if s.log != nil {
		cmd.Stderr = s.log
	}
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
}

// headers adds the configured headers to every request.
type headers struct {
	set  map[string]string
	next http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.set) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.set {
			r.Header.Set(k, v)
		}
	}
	return h.next.RoundTrip(r)
}

// progress passes a progress notification to the call that asked for it.
func (s *server) progress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if f, ok := s.tokens.Load(fmt.Sprint(req.Params.ProgressToken)); ok {
		f.(func(*sdk.ProgressNotificationParams))(req.Params)
	}
}

// session is the server's live session: after the server died, it is started again once.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && s.conn.alive() {
		return s.conn.session, nil
	}
	if s.restarts > 0 {
		return nil, fmt.Errorf("MCP server %s stopped and did not come back after a restart: its tools are unavailable", s.cfg.Name)
	}
	s.restarts++
	if s.conn != nil {
		s.conn.session.Close()
	}
	conn, _, err := s.connect(ctx)
	if err != nil {
		s.conn = nil
		return nil, fmt.Errorf("MCP server %s stopped, and its restart failed: %v", s.cfg.Name, err)
	}
	s.conn = conn
	return conn.session, nil
}

// Statuses are the servers' statuses, in the configuration's order (by name).
func (set *Set) Statuses() []*codec.MCPServerStatus {
	if set == nil {
		return nil
	}
	out := make([]*codec.MCPServerStatus, len(set.servers))
	for i, s := range set.servers {
		s.mu.Lock()
		st := s.status
		s.mu.Unlock()
		out[i] = &st
	}
	return out
}

// Notes are the warnings of the start: the failed optional servers and the tools left out.
func (set *Set) Notes() []string {
	if set == nil {
		return nil
	}
	var out []string
	for _, s := range set.servers {
		if s.status.Status == "failed" && !s.cfg.Required {
			out = append(out, fmt.Sprintf("MCP server %s failed, its tools are absent: %s", s.cfg.Name, s.status.Error))
		}
	}
	return append(out, set.notes...)
}

// StartError is a required server that failed: the run does not start (exit 2).
type StartError struct{ Name, Err string }

func (e *StartError) Error() string {
	return fmt.Sprintf("MCP server %s is required but failed: %s", e.Name, e.Err)
}
func (e *StartError) ExitCode() int { return 2 }

// Required is a *StartError for the first required server that failed; nil when none did.
func (set *Set) Required() error {
	if set == nil {
		return nil
	}
	for _, s := range set.servers {
		if s.cfg.Required && s.status.Status == "failed" {
			return &StartError{s.cfg.Name, s.status.Error}
		}
	}
	return nil
}

// closeWait bounds how long Close waits for the servers: a stdio server is killed within
// it (stdin closed, then SIGTERM, then SIGKILL), an HTTP server that does not answer the
// session's DELETE is left to itself.
const closeWait = 10 * time.Second

// Close ends every session (a stdio server gets its stdin closed, then a signal).
func (set *Set) Close() {
	if set == nil {
		return
	}
	done := make(chan struct{})
	defer func() {
		select {
		case <-done:
		case <-time.After(closeWait):
		}
	}()
	var wg sync.WaitGroup
	defer func() {
		go func() {
			wg.Wait()
			close(done)
		}()
	}()
	for _, s := range set.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.conn != nil {
				s.conn.session.Close()
				s.conn = nil
			}
			if s.log != nil {
				s.log.Close()
			}
		}()
	}
}

// callToken is a new progress token of the server's calls.
func (s *server) callToken() string {
	return "base-context-" + strings.TrimSpace(fmt.Sprint(s.nextCall.Add(1)))
}
