package session

import "github.com/basecontext/base-context/codec"

// Redactor removes secrets from what a Store writes (package redact's Redactor is one).
type Redactor interface {
	RedactMessage(codec.Message) (codec.Message, error)
	RedactString(string) string
	RedactJSON([]byte) []byte
}

// Redacting wraps s so that every string it writes has been through r first.
func Redacting(s Store, r Redactor) Store { return redactingStore{Store: s, r: r} }

type redactingStore struct {
	Store
	r Redactor
}

func (s redactingStore) AppendMessage(m codec.Message) (string, error) {
	red, err := s.r.RedactMessage(m)
	if err != nil {
		return "", err // never write it unredacted
	}
	return s.Store.AppendMessage(red)
}

// AppendModelChange redacts the names too: they come from the command line.
func (s redactingStore) AppendModelChange(provider, modelID string) error {
	return s.Store.AppendModelChange(s.r.RedactString(provider), s.r.RedactString(modelID))
}

// AppendThinkingLevel redacts the level too, so that every string the wrapper writes has
// been through the redactor.
func (s redactingStore) AppendThinkingLevel(level string) error {
	return s.Store.AppendThinkingLevel(s.r.RedactString(level))
}

// AppendEntry redacts the entry's fields (a compaction's summary, say) and its type.
func (s redactingStore) AppendEntry(typ string, fields []byte) (string, error) {
	if len(fields) > 0 {
		fields = s.r.RedactJSON(fields)
	}
	return s.Store.AppendEntry(s.r.RedactString(typ), fields)
}
