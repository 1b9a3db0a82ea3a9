package provider

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The stream-idle timeout measures the server's silence, not the reader's pace: a reader
// that takes longer than the timeout over each piece (a slow stdout) of an answer the server
// sent at once reads it all.
func TestStreamIdleTimeoutIsNotTheReadersPace(t *testing.T) {
	const idle = 100 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 3 {
			w.Write([]byte("data: piece\n\n"))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	res, err := Endpoint{StreamIdleTimeout: idle}.client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, len("data: piece\n\n"))
	var got int
	for {
		time.Sleep(3 * idle) // the reader's own work, longer than the timeout
		n, err := res.Body.Read(buf)
		got += n
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", got, err)
		}
	}
	if got != 3*len(buf) {
		t.Errorf("read %d bytes, want %d", got, 3*len(buf))
	}
}
