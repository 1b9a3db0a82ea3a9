package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestHTTPError(t *testing.T) {
	cases := []struct {
		status    int
		body      string
		want      string
		retryable bool
		overflow  bool
	}{
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "529 overloaded_error: Overloaded", true, false},
		{429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "429 rate_limit_exceeded: Rate limit reached", true, false},
		{400, `{"type":"invalid_request_error","message":"max_tokens: too large"}`, "400 invalid_request_error: max_tokens: too large", false, false},
		{400, `{"code":"context_length_exceeded","message":"This model's maximum context length is 128000 tokens"}`, "400 context_length_exceeded: This model's maximum context length is 128000 tokens", false, true},
		{400, `{"error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, "400 invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum", false, true},
		{401, `{"error":{"message":"Incorrect API key provided"}}`, "401 Incorrect API key provided", false, false},
		{403, `{"error":"forbidden"}`, "403 forbidden", false, false},
		{404, `{"error":{"code":404,"message":"model not found"}}`, "404 404: model not found", false, false},
		{500, ``, "500 (empty error body)", true, false},
		{503, "  \n", "503 (empty error body)", true, false},
		{502, `<html>Bad Gateway</html>`, "502 <html>Bad Gateway</html>", true, false},
		{408, `null`, "408 (empty error body)", true, false},
		{409, `{"message":"conflict"}`, "409 conflict", true, false},
		{400, `"{\"error\":{\"message\":\"double encoded\"}}"`, "400 double encoded", false, false},
		{400, `{"detail":"no message field"}`, `400 {"detail":"no message field"}`, false, false},
		{400, `{"error":{"message":"invalid value for timeout"}}`, "400 invalid value for timeout", false, false},
		{503, `{"error":{"message":"upstream timeout"}}`, "503 upstream timeout", true, false},
		// Google: the status name rather than the repeated number, and the list some endpoints wrap it in.
		{400, `{"error":{"code":400,"message":"Penalty is not enabled for models/gemini-2.5-flash","status":"INVALID_ARGUMENT"}}`,
			"400 INVALID_ARGUMENT: Penalty is not enabled for models/gemini-2.5-flash", false, false},
		{503, `[{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}]`, "503 UNAVAILABLE: The model is overloaded.", true, false},
	}
	for _, c := range cases {
		e := HTTPError(c.status, nil, []byte(c.body))
		if e.Error() != c.want || e.Retryable != c.retryable || e.Overflow != c.overflow {
			t.Errorf("HTTPError(%d, %s) = %q retryable=%v overflow=%v; want %q %v %v",
				c.status, c.body, e.Error(), e.Retryable, e.Overflow, c.want, c.retryable, c.overflow)
		}
	}
}

func TestContextOverflow(t *testing.T) {
	for msg, want := range map[string]bool{
		"prompt is too long: 212000 tokens > 200000 maximum":                            true,
		"context_length_exceeded: This model's maximum context length is 128000 tokens": true,
		"invalid_request_error: input length and max_tokens exceed context limit":       false,
		"Your input exceeds the context window of this model":                           true,
		"rate limit":                      false,
		"internal error":                  false,
		"mock bad request: invalid param": false,
	} {
		if got := ContextOverflow(msg); got != want {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
}

func TestLongBodiesAreCapped(t *testing.T) {
	page := "<html>" + strings.Repeat("é", 3000) + "</html>"
	e := HTTPError(502, nil, []byte(page))
	if len(e.Message) > maxMessage+40 || !strings.HasSuffix(e.Message, fmt.Sprintf("… (%d bytes in all)", len(page))) || !utf8.ValidString(e.Message) {
		t.Errorf("message of %d bytes: %q…", len(e.Message), e.Message[len(e.Message)-40:])
	}
}

func TestRetryAfter(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	if d := RetryAfter(h("Retry-After", "7")); d != 7*time.Second {
		t.Errorf("seconds: %v", d)
	}
	if d := RetryAfter(h("retry-after-ms", "1500", "Retry-After", "9")); d != 1500*time.Millisecond {
		t.Errorf("ms wins: %v", d)
	}
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	if d := RetryAfter(h("Retry-After", date)); d < 25*time.Second || d > 31*time.Second {
		t.Errorf("date: %v", d)
	}
	// A pause too long to represent saturates instead of wrapping to a negative, which a
	// cap on the pause would let through as "no wait asked".
	for _, kv := range [][]string{{"Retry-After", "1e300"}, {"Retry-After", "+Inf"}, {"retry-after-ms", "1e300"}} {
		if d := RetryAfter(h(kv...)); d != math.MaxInt64 {
			t.Errorf("%q: %v, want the longest duration", kv, d)
		}
	}
	for _, v := range []string{"", "soon", "-3", "0", "NaN"} {
		if d := RetryAfter(h("Retry-After", v)); d != 0 {
			t.Errorf("%q: %v", v, d)
		}
	}
	if e := HTTPError(429, h("Retry-After", "2"), nil); e.RetryAfter != 2*time.Second {
		t.Errorf("HTTPError keeps Retry-After: %v", e.RetryAfter)
	}
}

func TestStreamAndTransportErrors(t *testing.T) {
	if e := StreamError("overloaded_error", "Overloaded"); e.Error() != "overloaded_error: Overloaded" || !e.Retryable {
		t.Errorf("stream error: %q %v", e.Error(), e.Retryable)
	}
	if e := StreamError("invalid_request_error", "bad"); e.Retryable {
		t.Error("invalid request in a stream is not transient")
	}
	if e := CutOff(io.ErrUnexpectedEOF); e.Error() != MsgCutOff || !e.Retryable {
		t.Errorf("cut off: %q", e.Error())
	}
	if e := CutOff(syscall.ECONNRESET); e.Error() != MsgCutOff+": connection reset by peer" {
		t.Errorf("reset: %q", e.Error())
	}
	if e := NoFinish(); e.Error() != MsgNoFinish || !e.Retryable {
		t.Errorf("no finish: %q", e.Error())
	}
	if err := TransportError(context.Canceled); err != context.Canceled {
		t.Errorf("cancel must pass through: %v", err)
	}
	var perr *Error
	for _, in := range []error{syscall.ECONNRESET, fmt.Errorf("read: %w", syscall.ECONNREFUSED), context.DeadlineExceeded, io.ErrUnexpectedEOF} {
		if err := TransportError(in); !errors.As(err, &perr) || !perr.Retryable {
			t.Errorf("%v: not a transient *Error: %v", in, err)
		}
	}
	if err := TransportError(errors.New("tls: bad certificate")); !errors.As(err, &perr) || perr.Retryable {
		t.Errorf("certificate error must not be transient: %v", err)
	}
	// A refused connection is transient on another host, final on this machine's own
	// addresses, whatever name was dialled.
	for addr, retryable := range map[string]bool{
		"203.0.113.7:443": true, "[2001:db8::1]:443": true, "127.0.0.1:11434": false, "127.8.9.10:80": false, "[::1]:8080": false,
	} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		refused := &url.Error{Op: "Post", URL: "http://" + addr + "/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Addr: tcp,
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}
		if err := TransportError(refused); !errors.As(err, &perr) || perr.Retryable != retryable || !strings.HasPrefix(perr.Message, "connection failed: ") {
			t.Errorf("refused by %s: %#v, want retryable %v", addr, err, retryable)
		}
	}
}
