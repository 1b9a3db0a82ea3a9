package tools

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// testSecret stands for what the real rules find; it is built from pieces so that the
// source holds it nowhere whole.
var testSecret = "SECRET" + strings.Repeat("q7Zr", 8)

// literalRedaction is a RedactStream that replaces testSecret with a marker, holding back a
// tail that could begin it, as the real redaction does.
func literalRedaction() RedactStream {
	var held, out []byte
	return func(chunk []byte, end bool) []byte {
		held = append(held, chunk...)
		held = bytes.ReplaceAll(held, []byte(testSecret), []byte("[REDACTED]"))
		keep := 0
		if !end {
			for k := len(testSecret) - 1; k > 0; k-- {
				if bytes.HasSuffix(held, []byte(testSecret[:k])) {
					keep = k
					break
				}
			}
		}
		out = append(out[:0], held[:len(held)-keep]...)
		held = append(held[:0], held[len(held)-keep:]...)
		return out
	}
}

func redactingOptions(t *testing.T) Options {
	opts := testOptions(t)
	opts.Redact = func() RedactStream { return literalRedaction() }
	return opts
}

// piece returns an 8-byte piece of testSecret found in s, or "".
func piece(s string) string {
	for k := 0; k+8 <= len(testSecret); k++ {
		if strings.Contains(s, testSecret[k:k+8]) {
			return testSecret[k : k+8]
		}
	}
	return ""
}

// A line longer than the limit whose last 50 KB begin inside a secret: cut first, the rest
// of the secret would be kept where no rule recognises it. Redacted first, it is not, and
// the full-output file holds the redacted text.
func TestTruncateRedactsBeforeCutting(t *testing.T) {
	after := strings.Repeat("y", MaxBytes-10)
	text := strings.Repeat("x", 60000) + " " + testSecret + after
	for _, redacting := range []bool{false, true} {
		opts := testOptions(t)
		if redacting {
			opts = redactingOptions(t)
		}
		out, path, truncated := Truncate(text, opts, true)
		if !truncated {
			t.Fatal("not truncated")
		}
		p := piece(out)
		if !redacting {
			if p == "" {
				t.Fatal("the test does not cut the secret")
			}
			continue
		}
		if p != "" {
			t.Errorf("the kept tail shows %q: ...%s", p, out[:40])
		}
		want := strings.Repeat("x", 60000) + " [REDACTED]" + after
		r := Result{Details: (&details{FullOutputPath: path, Truncation: &truncationInfo{}}).encode()}
		r.Content = textResult(out).Content
		checkFullOutput(t, opts, r, want)
	}
}

// bash: the same for a command's output, in its result, its updates and its file.
func TestBashRedactsSpilledOutput(t *testing.T) {
	opts := redactingOptions(t)
	// The secret arrives in two writes, the second after the output has spilled.
	cmd := fmt.Sprintf("head -c 60000 /dev/zero | tr '\\0' x; printf ' %s'; sleep 0.2; printf '%s'; head -c %d /dev/zero | tr '\\0' y",
		testSecret[:10], testSecret[10:], MaxBytes-10)
	res, updates, err := bashRun(t, context.Background(), opts, bashArgs(cmd, 0))
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if p := piece(text); p != "" {
		t.Errorf("the result shows %q", p)
	}
	for i, u := range updates {
		if len(u.Content) > 0 {
			if p := piece(resultText(Result{Content: u.Content})); p != "" {
				t.Errorf("update %d shows %q", i, p)
			}
		}
	}
	want := strings.Repeat("x", 60000) + " [REDACTED]" + strings.Repeat("y", MaxBytes-10)
	checkFullOutput(t, opts, res, want)
	if !strings.Contains(text, "DACTED]yyyy") {
		t.Errorf("the tail does not end the redacted text: %q", text[:40])
	}
}

// An output that fits is the model's as it is: redaction is the stream's business then.
func TestBashKeepsOutputThatFits(t *testing.T) {
	opts := redactingOptions(t)
	res, _, err := bashRun(t, context.Background(), opts, bashArgs("printf '"+testSecret+"'", 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != testSecret {
		t.Errorf("result %q", got)
	}
}
