package stages_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// A redacting stage passes the next deltas of a quiet block on without a Push while each
// releases its text as it came, and pushes those that may start a secret.
func TestRedactSkipsOnlyQuietDeltas(t *testing.T) {
	const secret = "ghp_0123456789abcdefghij0123456789ABCDEF"
	var data []string
	for i := range 600 {
		data = append(data, fmt.Sprintf(`"%04d "`, i))
		if i == 300 { // the secret, a few bytes a delta, in the middle of the run
			for k := 0; k < len(secret); k += 3 {
				data = append(data, `"`+secret[k:min(k+3, len(secret))]+`"`)
			}
		}
	}
	stream := repeatStream(strings.Join(data, "\n"))
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := stages.NewRedact(r)
	counted := filterCounter{&pushCounter{DeltaSkipper: st}, st}
	var out bytes.Buffer
	if _, err := stages.Run([]stages.Input{{Name: "s", Reader: bytes.NewReader(stream)}}, codec.NewBatchWriter(&out), counted, stages.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	// Before the secret the block is quiet; once it has redacted something it is not, and
	// every delta is pushed.
	if lines := bytes.Count(stream, []byte("\n")); counted.skipped < 290 || counted.pushed+counted.skipped != lines {
		t.Errorf("%d lines pushed, %d skipped, of %d", counted.pushed, counted.skipped, lines)
	}
	var text strings.Builder
	for line := range strings.Lines(out.String()) {
		text.WriteString(codec.Lookup([]byte(line), "assistantMessageEvent.delta").Str([]byte(line)))
	}
	if strings.Contains(text.String(), secret[:12]) || !strings.Contains(text.String(), "[REDACTED:") || !strings.Contains(text.String(), "0599 ") {
		t.Errorf("the deltas say %q", text.String())
	}
	if read, fresh := runBoth(t, stream, func() stages.Stage { return stages.NewRedact(r) }); read != fresh {
		t.Fatalf("through the reader\n%s\nas fresh frames\n%s", read, fresh)
	}
}

// filterCounter is pushCounter for a stage that accepts deltas.
type filterCounter struct {
	*pushCounter
	filter stages.DeltaFilter
}

func (f filterCounter) AcceptsDelta(str []byte) bool { return f.filter.AcceptsDelta(str) }
