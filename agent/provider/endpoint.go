package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// The wire protocols ("api" of a model).
const (
	APIScript            = "script"
	APIOpenAICompletions = "openai-completions"
	APIOpenAIResponses   = "openai-responses"
	APIAnthropicMessages = "anthropic-messages"
	APIGemini            = "google-generative-ai"
)

// Endpoint is where and how a provider's server is reached.
type Endpoint struct {
	BaseURL    string            // "" is the API's public endpoint
	APIKey     string            // sent the way the API expects it
	Headers    map[string]string // extra headers on every request
	HTTPClient *http.Client      // nil is a client whose connection wait is bounded
	// StreamIdleTimeout bounds each silence of a response, from the request on: connecting,
	// the wait for the headers once the request is sent, and every pause between two reads
	// of the body. A response
	// that sends no byte for this long is ended as a cut stream (IdleTimeoutError), which is
	// transient. 0 is DefaultStreamIdleTimeout.
	StreamIdleTimeout time.Duration
	// Warn reports what the user should know but what does not fail the response (usage a
	// server did not send, a content part we cannot read); nil drops warnings.
	Warn func(msg string)
}

// warn reports msg through ep.Warn, if set.
func (ep Endpoint) warn(format string, args ...any) {
	if ep.Warn != nil {
		ep.Warn(fmt.Sprintf(format, args...))
	}
}

// DefaultStreamIdleTimeout is the silence after which a response counts as stalled: long
// enough for a large model's first token on a long context, short enough that a server that
// accepted the connection and never answers is noticed in minutes, not hours.
const DefaultStreamIdleTimeout = 90 * time.Second

// ConnectTimeout bounds connecting (and the TLS handshake) to a provider's server.
const ConnectTimeout = 30 * time.Second

// boundedClient waits at most ConnectTimeout to connect. Waiting for the headers and for the
// body's bytes is bounded by the endpoint's stream-idle timeout (idleTransport), never by a
// deadline on the whole response: a long answer streams as long as it takes.
var boundedClient = &http.Client{Transport: &http.Transport{
	Proxy:               http.ProxyFromEnvironment,
	DialContext:         (&net.Dialer{Timeout: ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout: ConnectTimeout,
	IdleConnTimeout:     90 * time.Second,
	MaxIdleConns:        10,
	ForceAttemptHTTP2:   true,
}}

// client is the endpoint's HTTP client, its transport watched for silences of the
// stream-idle timeout.
func (ep Endpoint) client() *http.Client {
	c := *boundedClient
	if ep.HTTPClient != nil {
		c = *ep.HTTPClient
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &idleTransport{base: base, idle: cmp.Or(ep.StreamIdleTimeout, DefaultStreamIdleTimeout)}
	return &c
}

// IdleTimeoutError is a response that sent nothing for the stream-idle timeout: before its
// headers, or between two chunks of its body. It is a timeout (net.Error), hence transient.
type IdleTimeoutError struct{ After time.Duration }

func (e *IdleTimeoutError) Error() string {
	return "no data from the server for " + e.After.String() + " (--stream-idle-timeout)"
}

// Timeout reports true: the error is a timeout, retried like any other.
func (e *IdleTimeoutError) Timeout() bool { return true }

// Temporary reports true (net.Error).
func (e *IdleTimeoutError) Temporary() bool { return true }

// idleTransport ends a request whose server stays silent for idle: a timer started with
// the request, restarted as the request's body is sent (a long request on a slow link is
// progress, not silence), and then running only while a read of the response's body waits,
// cancels the request's own context when it fires, and the failure is reported as an
// IdleTimeoutError instead of a cancellation (which would read as the user's abort).
type idleTransport struct {
	base http.RoundTripper
	idle time.Duration
}

// idleWatch is the timer of one request.
type idleWatch struct {
	idle    time.Duration
	timer   *time.Timer
	cancel  context.CancelFunc
	expired atomic.Bool
}

func (w *idleWatch) fire() {
	w.expired.Store(true)
	w.cancel()
}

// err is the error to report in place of err: the timeout when the watch fired.
func (w *idleWatch) err(err error) error {
	if err != nil && w.expired.Load() {
		return &IdleTimeoutError{After: w.idle}
	}
	return err
}

func (w *idleWatch) stop() {
	w.timer.Stop()
	w.cancel()
}

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	w := &idleWatch{idle: t.idle, cancel: cancel}
	w.timer = time.AfterFunc(t.idle, w.fire)
	req = req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = &sentBody{body: req.Body, w: w}
	}
	res, err := t.base.RoundTrip(req)
	if err != nil {
		w.stop()
		return nil, w.err(err)
	}
	// The headers came. From here the watch runs only while a read of the body waits: the
	// time the reader spends on what it read (a slow stdout) is not the server's silence.
	w.timer.Stop()
	res.Body = &idleBody{body: res.Body, w: w}
	return res, nil
}

// sentBody is a request body whose reads (by the transport, as it sends) restart the watch.
type sentBody struct {
	body io.ReadCloser
	w    *idleWatch
}

func (b *sentBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.w.timer.Reset(b.w.idle)
	}
	return n, err
}

func (b *sentBody) Close() error { return b.body.Close() }

// idleBody is a response body whose reads restart the watch.
type idleBody struct {
	body io.ReadCloser
	w    *idleWatch
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.w.timer.Reset(b.w.idle)
	n, err := b.body.Read(p)
	b.w.timer.Stop()
	return n, b.w.err(err)
}

func (b *idleBody) Close() error {
	err := b.body.Close()
	b.w.stop()
	return err
}

// CheckBaseURL says what is wrong with a configured base URL, nil when nothing is: it is an
// absolute http or https URL with a host, and without a query or fragment (the providers
// add their own paths and queries to it).
func CheckBaseURL(raw string) error {
	u, err := url.Parse(raw)
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("it must begin with http:// or https://")
	case u.Hostname() == "":
		return errors.New("it names no host")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return errors.New("it must not have a query (?) or a fragment (#)")
	}
	return nil
}

// ForAPI returns the provider speaking api at ep.
func ForAPI(api string, ep Endpoint) (Provider, error) {
	switch api {
	case APIOpenAICompletions:
		return NewOpenAICompletions(ep), nil
	case APIOpenAIResponses:
		return NewOpenAIResponses(ep), nil
	case APIAnthropicMessages:
		return NewAnthropic(ep), nil
	case APIGemini:
		return NewGemini(ep), nil
	}
	return nil, fmt.Errorf("unknown api %q (known: %s, %s, %s, %s)", api, APIOpenAICompletions, APIOpenAIResponses, APIAnthropicMessages, APIGemini)
}
