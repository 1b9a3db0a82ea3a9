package provider

import (
	"fmt"
	"net/http"
)

// The wire protocols ("api" of a model).
const (
	APIScript            = "script"
	APIOpenAICompletions = "openai-completions"
	APIOpenAIResponses   = "openai-responses"
	APIAnthropicMessages = "anthropic-messages"
)

// Endpoint is where and how a provider's server is reached.
type Endpoint struct {
	BaseURL    string            // "" is the API's public endpoint
	APIKey     string            // sent the way the API expects it
	Headers    map[string]string // extra headers on every request
	HTTPClient *http.Client      // nil is http.DefaultClient
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
	}
	return nil, fmt.Errorf("unknown api %q (known: %s, %s, %s)", api, APIOpenAICompletions, APIOpenAIResponses, APIAnthropicMessages)
}
