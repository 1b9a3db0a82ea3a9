package mockserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
)

// post starts a server playing script, sends body to path and returns the response with
// its whole body and the error that ended reading it: a cut-off stream reads as far as it
// goes.
func post(t *testing.T, script, path, body string) (*http.Response, []byte, error) {
	t.Helper()
	s, err := provider.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(s)
	t.Cleanup(srv.Close)
	res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	return res, out, err
}
