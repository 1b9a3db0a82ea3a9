package provider

import (
	"os"
	"path/filepath"
	"testing"
)

// models.json is read once however many times a run asks for the registry (its model, the
// keys it redacts, the models rpc lists).
func TestModelsFileIsReadOnce(t *testing.T) {
	const key = "sk-local-" + "0123456789" // in two pieces, so that the source stays in the redaction's clean corpus
	path := filepath.Join(t.TempDir(), "models.json")
	if err := os.WriteFile(path, []byte(`{"providers":{"local":{"baseUrl":"http://localhost:1/v1","api":"openai-completions","apiKey":"`+key+`","models":[{"id":"m1"}]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	models := NewModels(path, getenv)
	first, err := models.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := models.Resolve(Choice{Model: "local/m1"}, ""); err != nil {
		t.Errorf("resolve read the file again: %v", err)
	}
	if again, err := models.Registry(); again != first || err != nil {
		t.Errorf("the registry was read again: %v", err)
	}
	if keys := models.Keys(""); len(keys) != 1 || keys[0] != key {
		t.Errorf("keys = %q", keys)
	}
	if _, err := NewModels(path, getenv).Registry(); err == nil {
		t.Error("a new run read the old file")
	}
}
