package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The messages of failures that have no provider text of their own. They say what was seen,
// never a guessed cause.
const (
	MsgEmptyBody = "(empty error body)"
	MsgCutOff    = "the response stream was cut off before it finished"
	MsgNoFinish  = "the response stream ended without a finish reason"
)

// HTTPError is the error of a response with a failing HTTP status: the provider's own
// message (with its code or type) from a flat or nested error body, the status, whether it
// is transient, and the delay the server asked for.
func HTTPError(status int, header http.Header, body []byte) *Error {
	msg := BodyMessage(body)
	return &Error{
		Status:     status,
		Message:    msg,
		Retryable:  retryableHTTP(status, msg),
		RetryAfter: RetryAfter(header),
		Overflow:   status != 429 && ContextOverflow(msg),
	}
}

// StreamError is an error the provider reported inside a stream that began with HTTP 200
// (an SSE error event): code is its type or code, "" when it has none.
func StreamError(code, message string) *Error {
	msg := message
	if msg == "" {
		msg = "(error event without a message)"
	}
	if code != "" && code != "error" {
		msg = code + ": " + msg
	}
	return &Error{Message: msg, Retryable: Transient(msg), Overflow: ContextOverflow(msg)}
}

// CutOff is the error of a response stream that ended early: the body was cut, the
// connection reset or timed out. It is transient.
func CutOff(cause error) *Error {
	msg := MsgCutOff
	if cause != nil && !errors.Is(cause, io.EOF) && !errors.Is(cause, io.ErrUnexpectedEOF) {
		msg += ": " + cause.Error()
	}
	return &Error{Message: msg, Retryable: true}
}

// NoFinish is the error of a stream that ended cleanly without saying how the response
// finished: the answer may be incomplete, so it is not reported as a success.
func NoFinish() *Error { return &Error{Message: MsgNoFinish, Retryable: true} }

// BodyReadError classifies a failure while reading a response body that had begun: a reset,
// an early end, a timeout or a broken connection cut the answer off; other failures (an
// event that is not JSON, a line too long) are the server's, as TransportError says.
func BodyReadError(err error) error {
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		return CutOff(syscall.ECONNRESET)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return CutOff(nil)
	}
	if terr, ok := TransportError(err).(*Error); ok && terr.Retryable {
		return CutOff(err)
	}
	return TransportError(err)
}

// TransportError classifies an error of the HTTP round trip or of reading the body:
// cancellation passes through unchanged (the run was aborted), resets, timeouts and refused
// connections are transient, anything else is a failure as it is. A connection refused by
// this machine (a loopback address) is final: a local model server that is not running
// will not be running a few seconds later, and waiting for the retries only hides that.
func TransportError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var perr *Error
	if errors.As(err, &perr) {
		return err
	}
	var nerr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return &Error{Message: "request timed out: " + err.Error(), Retryable: true}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &Error{Message: "connection failed: " + err.Error(), Retryable: !dialedLoopback(err)}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Message: "connection failed: " + err.Error(), Retryable: true}
	}
	return &Error{Message: err.Error(), Retryable: Transient(err.Error())}
}

// dialedLoopback reports whether err is a failed connection to a loopback address
// (localhost, 127.0.0.0/8, ::1): the address dialled, whatever name resolved to it.
func dialedLoopback(err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || op.Addr == nil {
		return false
	}
	host, _, splitErr := net.SplitHostPort(op.Addr.String())
	if splitErr != nil {
		host = op.Addr.String()
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// BodyMessage extracts the message of a provider error body: the nested error.message or a
// flat message, prefixed with the error's code or type when it has one ("<type>: <message>");
// a body that is not JSON is the message as it is, and an empty body says so.
func BodyMessage(body []byte) string {
	return capMessage(bodyMessage(body))
}

// maxMessage bounds an error message taken from a body: an HTML error page goes into every
// errorMessage, turn_end and agent_end of the stream otherwise.
const maxMessage = 2000

func capMessage(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + fmt.Sprintf("… (%d bytes in all)", len(msg))
}

func bodyMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return MsgEmptyBody
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return string(body) // not JSON: plain text
	}
	if s, ok := v.(string); ok {
		// A JSON string: either plain text, or JSON text of its own.
		s = strings.TrimSpace(s)
		if s == "" {
			return MsgEmptyBody
		}
		var inner map[string]any
		if json.Unmarshal([]byte(s), &inner) == nil {
			if msg := objectMessage(inner); msg != "" {
				return msg
			}
		}
		return s
	}
	if list, ok := v.([]any); ok && len(list) == 1 {
		v = list[0] // Google wraps its error object in a list on some endpoints
	}
	if obj, ok := v.(map[string]any); ok {
		if msg := objectMessage(obj); msg != "" {
			return msg
		}
	}
	if v == nil {
		return MsgEmptyBody
	}
	var buf bytes.Buffer
	if json.Compact(&buf, body) == nil {
		return buf.String()
	}
	return string(body)
}

func objectMessage(obj map[string]any) string {
	switch e := obj["error"].(type) {
	case map[string]any:
		if msg := flatMessage(e); msg != "" {
			return msg
		}
	case string:
		if e != "" {
			return withCode(obj, e)
		}
	}
	return flatMessage(obj)
}

func flatMessage(obj map[string]any) string {
	msg, _ := obj["message"].(string)
	if msg == "" {
		return ""
	}
	return withCode(obj, msg)
}

// withCode prefixes msg with the object's code, or else its type (but not the envelope type
// "error" of an Anthropic body). A numeric code next to a status name (Google's
// {"code":429,"status":"RESOURCE_EXHAUSTED"}) repeats the HTTP status: the name says more.
func withCode(obj map[string]any, msg string) string {
	code := ""
	switch c := obj["code"].(type) {
	case string:
		code = c
	case float64:
		code = strconv.FormatFloat(c, 'f', -1, 64)
		if status, ok := obj["status"].(string); ok && status != "" {
			code = status
		}
	}
	if code == "" {
		if t, ok := obj["type"].(string); ok && t != "error" {
			code = t
		}
	}
	if code == "" || strings.HasPrefix(msg, code+": ") {
		return msg
	}
	return code + ": " + msg
}

// retryableHTTP: a transient status, an overloaded or rate-limit error whatever its status,
// or a transient message with a status that does not say the request itself was wrong (a
// 400 whose text mentions a timeout is still a bad request).
func retryableHTTP(status int, msg string) bool {
	return RetryableStatus(status) || containsAny(msg, overloadWords) ||
		(status < 400 || status >= 500) && Transient(msg)
}

// Transient reports whether a provider message describes a transient failure.
func Transient(msg string) bool {
	return containsAny(msg, overloadWords) || containsAny(msg, []string{"timeout", "timed out", "connection reset",
		"temporarily unavailable", "server_error", "api_error"})
}

// overloadWords name overloaded and rate-limited servers: transient whatever the status.
var overloadWords = []string{"overloaded", "rate limit", "rate_limit", "ratelimit", "too many requests"}

func containsAny(msg string, words []string) bool {
	m := strings.ToLower(msg)
	for _, w := range words {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// ContextOverflow reports whether a provider message says the request was larger than the
// model's context window.
func ContextOverflow(msg string) bool {
	return containsAny(msg, []string{"context_length_exceeded", "context length", "context window", "prompt is too long",
		"maximum context", "too many tokens", "input is too long", "exceeds the context",
		"exceeds the maximum number of tokens"})
}

// RetryAfter is the delay a response asks for before the next attempt (retry-after-ms,
// retry-after in seconds or as an HTTP date), 0 when it asks for none.
func RetryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return durationOf(ms, time.Millisecond)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s > 0) { // also NaN
			return 0
		}
		return durationOf(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// durationOf is n units as a duration, saturated at the longest one: a pause too long to
// represent (retry-after: 1e300) must stay longer than any cap, not wrap to a negative.
func durationOf(n float64, unit time.Duration) time.Duration {
	if d := n * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}
