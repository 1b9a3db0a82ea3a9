package cli

import (
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// RedactFlags are the agent's redaction flags: the stage of `filter redact`, with its
// default rules, in the output chain, and optionally around the session file.
type RedactFlags struct {
	Redact        bool `help:"Remove secrets from the event stream (the default rules of 'filter redact', plus the values of the API keys configured)."`
	RedactSession bool `help:"Also remove them from what is written to the session file (implies --redact)."`

	redactor *stages.Redactor
}

// stage returns the redaction stage to put in the output chain before the deltas stage, or
// nil without --redact. extraSecrets are values always redacted (the API keys in use).
func (c *RedactFlags) stage(extraSecrets []string) (stages.Stage, error) {
	if !c.Redact && !c.RedactSession {
		return nil, nil
	}
	if c.redactor == nil {
		var none RedactRuleFlags
		r, err := none.redactor(&IO{Getenv: func(string) string { return "" }}, extraSecrets)
		if err != nil {
			return nil, err
		}
		c.redactor = r
	}
	return stages.NewRedact(c.redactor), nil
}

// store wraps s so that what it writes is redacted, with --redact-session (after stage).
func (c *RedactFlags) store(s session.Store) session.Store {
	if !c.RedactSession || c.redactor == nil {
		return s
	}
	base := redactingStore{Store: s, r: c.redactor}
	if e, ok := s.(entryAppender); ok {
		// Keep the store's optional methods visible to the agent's type checks.
		return redactingEntryStore{base, e}
	}
	return base
}

// apiKeys are the values of the keys the agent may use: --api-key and every configured
// provider's key (its environment variable or models.json entry).
func (c *RunCmd) apiKeys(streams *IO) []string {
	var keys []string
	if c.APIKey != "" {
		keys = append(keys, c.APIKey)
	}
	if reg, err := provider.LoadRegistry(modelsPath(streams), streams.Getenv); err == nil {
		for _, p := range reg.Providers {
			if k, err := p.Key(streams.Getenv); err == nil && k != "" {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// redactingStore redacts each message before the store writes it.
type redactingStore struct {
	session.Store
	r *stages.Redactor
}

func (s redactingStore) AppendMessage(m codec.Message) (string, error) {
	red, err := s.r.RedactMessage(m)
	if err != nil {
		return "", err // never write it unredacted
	}
	return s.Store.AppendMessage(red)
}

type entryAppender interface {
	AppendEntry(typ string, fields []byte) (string, error)
}

// redactingEntryStore is redactingStore for a store that also takes other entries
// (compactions), whose fields are redacted too.
type redactingEntryStore struct {
	redactingStore
	entries entryAppender
}

func (s redactingEntryStore) AppendEntry(typ string, fields []byte) (string, error) {
	if len(fields) > 0 {
		fields = s.r.RedactJSON(fields)
	}
	return s.entries.AppendEntry(typ, fields)
}
