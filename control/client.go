package control

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrRemote is a request the run refused; the error's text is the run's reason.
var ErrRemote = errors.New("refused by the run")

type remoteError struct{ msg string }

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return ErrRemote }

// dial connects to a run's socket.
func dial(socket string) (net.Conn, error) {
	c, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	return c, nil
}

// exchange sends req on c and reads the reply.
func exchange(c net.Conn, r *bufio.Reader, req Request) (Reply, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return Reply{}, err
	}
	if len(data)+1 > MaxRequest {
		return Reply{}, fmt.Errorf("control: the request is too long: %d bytes encoded, a run takes at most %d (1 MB)", len(data)+1, MaxRequest)
	}
	_, werr := c.Write(append(data, '\n'))
	// A run that refuses the caller replies and hangs up without reading the request: its
	// reason is still there to read after the write failed.
	line, err := r.ReadBytes('\n')
	if werr != nil && err != nil {
		return Reply{}, fmt.Errorf("control: %w", werr)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Reply{}, errors.New("control: the run closed the connection without a reply (it has ended)")
		}
		return Reply{}, fmt.Errorf("control: %w", err)
	}
	var reply Reply
	if err := json.Unmarshal(line, &reply); err != nil {
		return Reply{}, fmt.Errorf("control: invalid reply: %w", err)
	}
	if !reply.OK {
		return reply, &remoteError{reply.Error}
	}
	return reply, nil
}

// Call sends one request to the run listening on socket and returns its reply.
func Call(socket string, req Request) (Reply, error) {
	c, err := dial(socket)
	if err != nil {
		return Reply{}, err
	}
	defer c.Close()
	return exchange(c, bufio.NewReader(c), req)
}

// Stop asks the run on socket to stop and waits until it has ended (its session saved).
func Stop(socket string) error {
	c, err := dial(socket)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := exchange(c, r, Request{Op: OpStop}); err != nil {
		return err
	}
	// The run keeps the connection open until it has ended.
	_, err = io.Copy(io.Discard, r)
	return err
}
