package stages_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// validate runs the validator over input as `filter validate --pass` does and returns what
// it passed on and the violations it reported.
func validate(t testing.TB, input []byte, opts stages.ValidateOptions) (out []byte, violations []string, res stages.ValidateResult) {
	t.Helper()
	opts.Report = func(v stages.Violation) { violations = append(violations, v.String()) }
	v := stages.NewValidator(opts)
	out = run(t, v, input)
	return out, violations, v.Result()
}

func TestValidateReferenceStreamsBothForms(t *testing.T) {
	for name, full := range referenceStreams(t) {
		for form, in := range map[string][]byte{"full": full, "delta": deltas(t, full)} {
			t.Run(name+"/"+form, func(t *testing.T) {
				out, violations, res := validate(t, in, stages.ValidateOptions{Strict: true})
				for _, v := range violations {
					t.Error(v)
				}
				if !bytes.Equal(out, in) {
					t.Error("the stream did not pass through unchanged")
				}
				if res.Lines != len(lines(in)) || res.Violations != 0 {
					t.Errorf("result %+v for %d lines", res, len(lines(in)))
				}
				if len(in) > 0 && strings.Contains(string(in), `"role":"assistant"`) && res.Form != form {
					t.Errorf("form %q, want %q", res.Form, form)
				}
			})
		}
	}
}

var updateBroken = flag.Bool("update-broken", false, "rewrite testdata/broken/*.want from the validator's reports (review them!)")

// TestValidateBrokenStreams: each hand-broken stream in testdata/broken produces exactly
// the violations its .want file lists (one per line, in order); the strict_ ones are
// validated with --strict.
func TestValidateBrokenStreams(t *testing.T) {
	files, _ := filepath.Glob("../testdata/broken/*.jsonl")
	if len(files) < 10 {
		t.Fatalf("found only %d broken streams", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wantFile := strings.TrimSuffix(f, ".jsonl") + ".want"
			_, got, res := validate(t, in, stages.ValidateOptions{Strict: strings.HasPrefix(name, "strict_")})
			if *updateBroken {
				os.WriteFile(wantFile, []byte(strings.Join(got, "\n")+"\n"), 0o644)
			}
			wantRaw, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSpace(string(wantRaw)), "\n")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if res.Violations != len(want) {
				t.Errorf("counted %d violations, reported %d", res.Violations, len(want))
			}
		})
	}
}

func TestValidateSkipInvalidDropsBadLines(t *testing.T) {
	in := []byte("{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"t\",\"cwd\":\"/\"}\nnot json\n{\"type\":\"custom_thing\"}\n")
	out, violations, _ := validate(t, in, stages.ValidateOptions{SkipInvalid: true})
	if want := "line 2: not a JSON object: invalid JSON"; len(violations) != 1 || !strings.HasPrefix(violations[0], want) {
		t.Errorf("violations %q, want one starting %q", violations, want)
	}
	if string(out) != "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n{\"type\":\"custom_thing\"}\n" {
		t.Errorf("out %q", out)
	}
	// Without --skip-invalid the bad line stays in its place.
	out, _, _ = validate(t, in, stages.ValidateOptions{})
	if !bytes.Equal(out, in) {
		t.Errorf("out %q", out)
	}
}

// The validator works on the agent's typed events too (it encodes them to look at them).
func TestValidateTypedEvents(t *testing.T) {
	var violations []string
	v := stages.NewValidator(stages.ValidateOptions{Report: func(x stages.Violation) { violations = append(violations, x.String()) }})
	emit := func(*stages.Frame) error { return nil }
	for _, e := range []codec.Event{
		&codec.Header{Version: 3, ID: "id", Timestamp: "2026-12-02T14:02:42.971Z", Cwd: "/"},
		&codec.AgentStart{},
		&codec.TurnStart{},
	} {
		if err := v.Push(stages.EventFrame(e), emit); err != nil {
			t.Fatal(err)
		}
	}
	v.Flush(emit)
	want := []string{"line 3: turn_start: no turn_end before the end of the stream", "line 2: agent_start: no agent_end before the end of the stream"}
	if strings.Join(violations, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations %q, want %q", violations, want)
	}
}

func BenchmarkValidate(b *testing.B) {
	benchStage(b, func() stages.Stage { return stages.NewValidator(stages.ValidateOptions{}) }, fLong)
}

func BenchmarkValidateDeltas(b *testing.B) {
	benchStage(b, func() stages.Stage { return stages.NewValidator(stages.ValidateOptions{}) }, func(t testing.TB) []byte {
		return deltas(t, fLong(t))
	})
}

// FuzzValidateAndVerdict: on any input, the validator passes every line on unchanged and
// counts what it reports, the delta form of a stream it finds valid is valid too, and the
// verdict is one JSON object whose status is a known one.
func FuzzValidateAndVerdict(f *testing.F) {
	for _, in := range referenceStreams(f) {
		ls := lines(in)
		for i := 0; i+4 <= len(ls) && i < 40; i += 4 {
			f.Add(bytes.Join(ls[i:i+4], []byte("\n")))
		}
	}
	broken, _ := filepath.Glob("../testdata/broken/*.jsonl")
	for _, b := range broken {
		data, err := os.ReadFile(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, violations, res := validate(t, in, stages.ValidateOptions{Strict: true})
		il, ol := lines(bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))), lines(out)
		if len(il) != len(ol) {
			t.Fatalf("%d lines in, %d out", len(il), len(ol))
		}
		for i := range il {
			if !bytes.Equal(il[i], ol[i]) && !bytes.Equal(bytes.TrimSuffix(il[i], []byte("\r")), ol[i]) {
				t.Fatalf("line %d changed: %q → %q", i+1, il[i], ol[i])
			}
		}
		if len(violations) != res.Violations {
			t.Fatalf("reported %d violations, counted %d", len(violations), res.Violations)
		}
		if res.Violations == 0 {
			if _, dv, _ := validate(t, deltas(t, in), stages.ValidateOptions{Strict: true}); len(dv) > 0 {
				t.Fatalf("valid stream, but its delta form is not: %q", dv)
			}
		}
		line, s := verdict(t, in, stages.VerdictOptions{})
		var decoded map[string]any
		if err := json.Unmarshal(line, &decoded); err != nil || decoded["status"] != s.Status {
			t.Fatalf("verdict line %q: %v", line, err)
		}
		switch s.Status {
		case stages.VerdictCompleted, stages.VerdictFailed, stages.VerdictLimit, stages.VerdictGate:
		default:
			t.Fatalf("status %q", s.Status)
		}
	})
}
