package control

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/basecontext/base-context/codec"
)

// Operations of the control protocol: one JSON object per line each way. A request is
// {"op":…} plus the operation's fields; a reply is {"ok":true,…} or {"ok":false,"error":…}.
const (
	OpStatus = "status" // reply: "status", the run's description
	OpStop   = "stop"   // abort the run as SIGINT would; the connection stays open until the run has ended
	OpSend   = "send"   // queue "text" as a "steer" or "followUp" message
)

// Kinds of message a send queues.
const (
	KindSteer    = "steer"
	KindFollowUp = "followUp"
)

// Request is one request line.
type Request struct {
	Op   string `json:"op"`
	Kind string `json:"kind,omitempty"`
	Text string `json:"text,omitempty"`
}

// Reply is one reply line.
type Reply struct {
	OK     bool            `json:"ok"`
	Error  string          `json:"error,omitempty"`
	Status json.RawMessage `json:"status,omitempty"`
}

// Handler carries out the requests of a run's control socket. Its methods are called from
// the server's goroutines.
type Handler interface {
	Stop() error
	Send(kind, text string) error
	Status() any
}

// MaxRequest bounds one request line, newline included: a sent message can be long, not
// unbounded, and a caller cannot make the run hold more than this.
const MaxRequest = 1 << 20

// maxSocketPath keeps a socket path within sun_path (108 bytes on Linux, 104 on macOS).
const maxSocketPath = 100

// SocketPath returns the socket path of run id: <dir>/<id>.sock, or, when that is too long
// for a unix socket address, a short name (a hash of that path) in dir, or else in a private
// folder base-context-<uid> of $TMPDIR or of /tmp. The registry entry records the path.
func SocketPath(dir, id string) (string, error) {
	p := filepath.Join(dir, id+".sock")
	if len(p) <= maxSocketPath {
		return p, nil
	}
	sum := sha256.Sum256([]byte(p))
	name := hex.EncodeToString(sum[:6]) + ".sock"
	if s := filepath.Join(dir, name); len(s) <= maxSocketPath {
		return s, nil
	}
	private := fmt.Sprintf("base-context-%d", os.Getuid())
	for _, tmp := range []string{os.TempDir(), "/tmp"} {
		s := filepath.Join(tmp, private, name)
		if len(s) > maxSocketPath {
			continue
		}
		if err := privateDir(filepath.Dir(s)); err != nil {
			return "", err
		}
		return s, nil
	}
	return "", fmt.Errorf("control: no socket path short enough for %s", p)
}

// privateDir makes sure dir is a folder of ours that nobody else can enter.
func privateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("control: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("control: %w", err)
	}
	if !st.IsDir() || !ownedByUser(st) {
		return fmt.Errorf("control: %s is not a folder of this user", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// Server serves a run's control socket.
type Server struct {
	ln      *net.UnixListener
	path    string
	handler Handler

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	done   chan struct{} // closed by Close: the run has ended
	wg     sync.WaitGroup
}

// Listen creates the socket at path (0600) and serves it until Close.
func Listen(path string, h Handler) (*Server, error) {
	if err := socketsSupported(); err != nil {
		return nil, err
	}
	os.Remove(path) // a dead run's socket; a live run never shares a path
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control: %w", err)
	}
	s := &Server{ln: ln, path: path, handler: h, conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

func (s *Server) serve(c *net.UnixConn) {
	if err := checkPeer(c); err != nil {
		writeReply(c, Reply{Error: err.Error()})
		return
	}
	r := bufio.NewReaderSize(c, 4096)
	for {
		line, err := readRequest(r)
		if errors.Is(err, errRequestTooLong) {
			writeReply(c, Reply{Error: err.Error()})
			return
		}
		if len(line) == 0 && err != nil {
			return
		}
		req, rerr := parseRequest(line)
		if rerr != nil {
			writeReply(c, Reply{Error: "invalid request: " + rerr.Error()})
			return
		}
		reply, wait := s.handle(req)
		if writeReply(c, reply) != nil {
			return
		}
		if wait {
			<-s.done
			return
		}
		if err != nil {
			return
		}
	}
}

var errRequestTooLong = fmt.Errorf("request line longer than %d bytes", MaxRequest)

// readRequest reads one request line (its newline included, if it has one) of at most
// MaxRequest bytes.
func readRequest(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxRequest {
			return nil, errRequestTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// parseRequest decodes a request line. A line that parsers could read in different ways is
// refused rather than guessed at: {"op":"status","op":"stop"} is a stop to jq and to
// encoding/json, a status to others.
func parseRequest(line []byte) (Request, error) {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return req, err
	}
	var err error
	codec.EachAmbiguity(line, func(a codec.Ambiguity) bool {
		err = errors.New(a.String())
		return false
	})
	return req, err
}

func (s *Server) handle(req Request) (reply Reply, waitForEnd bool) {
	var err error
	switch req.Op {
	case OpStatus:
		var data []byte
		if data, err = json.Marshal(s.handler.Status()); err == nil {
			return Reply{OK: true, Status: data}, false
		}
	case OpStop:
		if err = s.handler.Stop(); err == nil {
			return Reply{OK: true}, true
		}
	case OpSend:
		switch req.Kind {
		case KindSteer, KindFollowUp:
			err = s.handler.Send(req.Kind, req.Text)
		default:
			err = fmt.Errorf("unknown message kind %q (want %s or %s)", req.Kind, KindSteer, KindFollowUp)
		}
		if err == nil {
			return Reply{OK: true}, false
		}
	default:
		err = fmt.Errorf("unknown operation %q", req.Op)
	}
	return Reply{Error: err.Error()}, false
}

func writeReply(c net.Conn, r Reply) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = c.Write(append(data, '\n'))
	return err
}

// Close stops taking requests and ends every connection, which tells the callers waiting
// on a stop that the run has ended. The socket file is removed.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	err := s.ln.Close()
	for c := range s.conns {
		// Unblock readers; a stop's caller is told by its connection's end.
		c.(*net.UnixConn).CloseRead()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}
