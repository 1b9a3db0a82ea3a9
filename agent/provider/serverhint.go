package provider

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
)

// serverHint adds to a refused connection to a server on this machine the question a user
// should ask first: a local model server (Ollama, llama.cpp, vLLM) that is not running is
// the usual cause.
type serverHint struct {
	Provider
	baseURL string
}

// WithServerHint wraps p when baseURL is a server on this machine, so that a refused
// connection asks whether the server is running.
func WithServerHint(p Provider, baseURL string) Provider {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return p
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return p
	}
	return serverHint{Provider: p, baseURL: baseURL}
}

func (p serverHint) Stream(ctx context.Context, req Request, emit func(Event)) error {
	err := p.Provider.Stream(ctx, req, emit)
	var pe *Error
	if errors.As(err, &pe) && pe.Status == 0 && strings.Contains(pe.Message, "connection refused") {
		hinted := *pe
		hinted.Message += " (is the server running at " + p.baseURL + "?)"
		return &hinted
	}
	return err
}
