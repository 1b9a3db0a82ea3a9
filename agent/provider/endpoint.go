package provider

import (
	"fmt"
	"net"
	"net/http"
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
	HTTPClient *http.Client      // nil is a client whose connection and header waits are bounded
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

// boundedClient waits at most 30 s to connect and 5 min for a response's headers, so that a
// server that never answers ends as a (transient) timeout instead of a run that hangs. The
// body has no deadline: a long answer streams as long as it takes.
var boundedClient = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout:   30 * time.Second,
	ResponseHeaderTimeout: 5 * time.Minute,
	IdleConnTimeout:       90 * time.Second,
	MaxIdleConns:          10,
	ForceAttemptHTTP2:     true,
}}

// client is the endpoint's HTTP client.
func (ep Endpoint) client() *http.Client {
	if ep.HTTPClient != nil {
		return ep.HTTPClient
	}
	return boundedClient
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
