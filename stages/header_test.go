package stages_test

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

var testHeader = codec.Header{Version: 3, ID: "0190c2a4-0000-7000-8000-000000000001", Timestamp: "2026-01-02T03:04:05.678Z", Cwd: "/w"}

const testHeaderLine = `{"type":"session","version":3,"id":"0190c2a4-0000-7000-8000-000000000001","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/w"}`

func header(t testing.TB, in []byte, opts stages.HeaderOptions) []byte {
	t.Helper()
	if opts.Header.ID == "" {
		opts.Header = testHeader
	}
	return run(t, stages.NewHeader(opts), in)
}

// Both forms of every reference stream: a stream that starts with a header is left byte for
// byte as it is; without its header it gets ours first and is otherwise unchanged.
func TestHeaderOfReferenceStreams(t *testing.T) {
	for name, full := range referenceStreams(t) {
		for form, in := range map[string][]byte{"full": full, "deltas": deltas(t, full)} {
			t.Run(name+"/"+form, func(t *testing.T) {
				if len(in) == 0 {
					if got := header(t, in, stages.HeaderOptions{}); string(got) != testHeaderLine+"\n" {
						t.Fatalf("empty stream: got %q", got)
					}
					return
				}
				if codec.LineType(lines(in)[0]) != "session" {
					t.Fatal("reference stream without a header")
				}
				if got := header(t, in, stages.HeaderOptions{}); !bytes.Equal(got, in) {
					t.Fatal("a stream with a header changed")
				}
				body := in[bytes.IndexByte(in, '\n')+1:]
				got := header(t, body, stages.HeaderOptions{})
				if want := append([]byte(testHeaderLine+"\n"), body...); !bytes.Equal(got, want) {
					t.Fatalf("header not inserted as the only change:\n%.300s", got)
				}
			})
		}
	}
}

// --stamp --seq on every reference stream: each line after the header gains exactly
// ,"sessionId":<the header's id>,"seq":N right after "type" and nothing else; stamping again
// changes nothing.
func TestHeaderStampsReferenceStreams(t *testing.T) {
	for name, full := range referenceStreams(t) {
		for form, in := range map[string][]byte{"full": full, "deltas": deltas(t, full)} {
			if len(in) == 0 {
				continue
			}
			t.Run(name+"/"+form, func(t *testing.T) {
				opts := stages.HeaderOptions{Stamp: true, Seq: true}
				out := header(t, in, opts)
				inLines, outLines := lines(in), lines(out)
				if len(inLines) != len(outLines) || !bytes.Equal(inLines[0], outLines[0]) {
					t.Fatal("header line or line count changed")
				}
				id := codec.Find(inLines[0], "id").Raw(inLines[0])
				for i := 1; i < len(inLines); i++ {
					typ := codec.Find(inLines[i], "type")
					pos := typ.ValEnd
					want := string(inLines[i][:pos]) + fmt.Sprintf(`,"sessionId":%s,"seq":%d`, id, i) + string(inLines[i][pos:])
					if string(outLines[i]) != want {
						t.Fatalf("line %d:\n got %.200s\nwant %.200s", i+1, outLines[i], want)
					}
				}
				if again := header(t, out, opts); !bytes.Equal(again, out) {
					t.Error("stamping a stamped stream changed it")
				}
				// Stamping after select renumbers: seq counts what is left.
				ends := run(t, stages.NewSelect(stages.SelectOptions{Types: []string{"message_end"}}), out)
				restamped := lines(header(t, ends, opts))
				for i, l := range restamped[1:] {
					if got := codec.Find(l, "seq").Raw(l); string(got) != fmt.Sprint(i+1) {
						t.Fatalf("after select, line %d has seq %s", i+2, got)
					}
				}
			})
		}
	}
}

func TestHeaderStampEdgeCases(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"agent_start"}`,
		`not json`,
		`{}`,
		` { "n" : 1 }`,
		`{"type":"x","sessionId":"old","seq":99,"z":[1]}`,
		`{"type":"session","version":3,"id":"second","timestamp":"t","cwd":"/"}`,
		`{"type":"turn_start","sessionId":"second"}`,
		`{"type" : "y" , "a":"\"sessionId\""}`,
	}, "\n") + "\n"
	want := strings.Join([]string{
		testHeaderLine,
		`{"type":"agent_start","sessionId":"0190c2a4-0000-7000-8000-000000000001","seq":1}`,
		`not json`,
		`{"sessionId":"0190c2a4-0000-7000-8000-000000000001","seq":2}`,
		` {"sessionId":"0190c2a4-0000-7000-8000-000000000001","seq":3, "n" : 1 }`,
		`{"type":"x","sessionId":"0190c2a4-0000-7000-8000-000000000001","seq":4,"z":[1]}`,
		`{"type":"session","version":3,"id":"second","timestamp":"t","cwd":"/"}`,
		`{"type":"turn_start","seq":5,"sessionId":"second"}`,
		`{"type" : "y","sessionId":"second","seq":6 , "a":"\"sessionId\""}`,
	}, "\n") + "\n"
	got := header(t, []byte(in), stages.HeaderOptions{Stamp: true, Seq: true})
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// Without --seq, an existing seq is left alone; without --stamp, sessionId is.
	got = header(t, []byte(`{"type":"x","seq":7}`+"\n"), stages.HeaderOptions{Stamp: true})
	if want := testHeaderLine + "\n" + `{"type":"x","sessionId":"0190c2a4-0000-7000-8000-000000000001","seq":7}` + "\n"; string(got) != want {
		t.Fatalf("stamp only: got %s", got)
	}
	got = header(t, []byte(`{"type":"x","sessionId":"s"}`+"\n"), stages.HeaderOptions{Seq: true})
	if want := testHeaderLine + "\n" + `{"type":"x","seq":1,"sessionId":"s"}` + "\n"; string(got) != want {
		t.Fatalf("seq only: got %s", got)
	}
}

func TestHeaderReplace(t *testing.T) {
	own := `{"type":"session","version":3,"id":"mine","timestamp":"2020-01-01T00:00:00.000Z","cwd":"/old","parentSession":"p","x":{"id":1}}`
	rest := "\n" + `{"type":"agent_start"}` + "\n"
	cases := []struct {
		replace []string
		want    string
	}{
		{nil, own},
		{[]string{"id"}, `{"type":"session","version":3,"id":"0190c2a4-0000-7000-8000-000000000001","timestamp":"2020-01-01T00:00:00.000Z","cwd":"/old","parentSession":"p","x":{"id":1}}`},
		{[]string{"cwd", "timestamp"}, `{"type":"session","version":3,"id":"mine","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/w","parentSession":"p","x":{"id":1}}`},
	}
	for _, c := range cases {
		got := header(t, []byte(own+rest), stages.HeaderOptions{Replace: c.replace, Stamp: true})
		id := regexp.MustCompile(`"id":("[^"]*")`).FindStringSubmatch(c.want)[1]
		want := c.want + "\n" + `{"type":"agent_start","sessionId":` + id + `}` + "\n"
		if string(got) != want {
			t.Errorf("replace %v:\n got %s\nwant %s", c.replace, got, want)
		}
	}
	// A field the header lacks is added at its end.
	got := header(t, []byte(`{"type":"session","version":3,"id":"a"}`+"\n"), stages.HeaderOptions{Replace: []string{"id", "cwd"}})
	if want := `{"type":"session","version":3,"id":"0190c2a4-0000-7000-8000-000000000001","cwd":"/w"}` + "\n"; string(got) != want {
		t.Errorf("got %s", got)
	}
}

// In process (the agent's chain), the header is written as a typed event ahead of the first
// event, and a typed header the stream starts with is replaced without encoding.
func TestHeaderInProcess(t *testing.T) {
	var out bytes.Buffer
	w := codec.NewLineWriter(&out)
	write := func(f *stages.Frame) error { return f.WriteLine(w) }
	var firstEvent codec.Event
	st := stages.Chain(stages.NewHeader(stages.HeaderOptions{Header: testHeader}), stages.NewDeltas())
	for _, e := range []codec.Event{&codec.AgentStart{}, &codec.TurnStart{}} {
		if err := st.Push(stages.EventFrame(e), func(f *stages.Frame) error {
			if firstEvent == nil {
				firstEvent = f.Event
			}
			return write(f)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Flush(write); err != nil {
		t.Fatal(err)
	}
	if h, ok := firstEvent.(*codec.Header); !ok || *h != testHeader {
		t.Fatalf("first frame %#v, want the typed header", firstEvent)
	}
	if want := testHeaderLine + "\n{\"type\":\"agent_start\"}\n{\"type\":\"turn_start\"}\n"; out.String() != want {
		t.Fatalf("got %s", out.String())
	}

	st2 := stages.NewHeader(stages.HeaderOptions{Header: testHeader, Replace: []string{"cwd"}})
	var got *codec.Header
	own := &codec.Header{Version: 3, ID: "own", Timestamp: "t", Cwd: "/old"}
	st2.Push(stages.EventFrame(own), func(f *stages.Frame) error { got, _ = f.Event.(*codec.Header); return nil })
	if got == nil || *got != (codec.Header{Version: 3, ID: "own", Timestamp: "t", Cwd: "/w"}) || own.Cwd != "/old" {
		t.Fatalf("replaced typed header %+v (own %+v)", got, own)
	}
}

// FuzzHeaderStamp: on any input, the header stage adds at most the header line, keeps every
// line in its place, leaves lines that are not objects alone, and stamps every object so
// that it stays valid and carries the id and its number; stamping again changes nothing.
func FuzzHeaderStamp(f *testing.F) {
	for _, in := range referenceStreams(f) {
		ls := lines(in)
		for i := 0; i+3 <= len(ls) && i < 40; i += 3 {
			f.Add(bytes.Join(ls[i:i+3], []byte("\n")))
		}
	}
	f.Add([]byte("{}\n { \"seq\" : \"x\" , \"type\":1}\nnot json\n{\"type\":\"session\",\"id\":5}\n{\"sessionId\":null,\"sessionId\":2}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		opts := stages.HeaderOptions{Stamp: true, Seq: true}
		out := header(t, in, opts)
		il, ol := readLines(t, in), readLines(t, out)
		if len(il) > 0 && codec.CheckObject(il[0]) == nil && codec.LineType(il[0]) == "session" {
			il = il[1:]
		}
		if len(ol) != len(il)+1 || codec.LineType(ol[0]) != "session" {
			t.Fatalf("%d lines in, %d out, first %q", len(il), len(ol), ol[0])
		}
		seq := 0
		for i, l := range ol[1:] {
			orig := il[i]
			if codec.CheckObject(orig) != nil {
				if !bytes.Equal(orig, l) {
					t.Fatalf("line %d is not an object but changed: %q → %q", i+2, orig, l)
				}
				continue
			}
			if codec.CheckObject(l) != nil {
				t.Fatalf("stamping made line %d invalid: %q → %q", i+2, orig, l)
			}
			if codec.LineType(orig) == "session" {
				continue
			}
			seq++
			if got := codec.Find(l, "seq").Raw(l); string(got) != fmt.Sprint(seq) {
				t.Fatalf("line %d: seq %s, want %d: %q", i+2, got, seq, l)
			}
			if !codec.Find(l, "sessionId").Exists() {
				t.Fatalf("line %d: no sessionId: %q", i+2, l)
			}
		}
		if again := header(t, out, opts); !bytes.Equal(again, out) {
			t.Fatalf("stamping twice differs:\n%s\n%s", out, again)
		}
	})
}

// readLines splits b into lines as the filters read them (an empty line is a line).
func readLines(t testing.TB, b []byte) [][]byte {
	var ls [][]byte
	lr := codec.NewLineReader(bytes.NewReader(b))
	for {
		l, err := lr.ReadLine()
		if err == io.EOF {
			return ls
		}
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, append([]byte(nil), l...))
	}
}

// Runs of lines that repeat the line before but for one string's body (as a block's deltas
// do), in every layout stamp meets, through the reader (which finds the repeats) and one
// frame a line (which finds none): each stamped line is the expected one, whatever the body
// holds, where sessionId and seq stand, and as seq gains digits (9→10, 99→100, 999→1000).
func TestHeaderStampsRepeatedLines(t *testing.T) {
	const id = `"0190c2a4-0000-7000-8000-000000000001"`
	type layout struct{ in, want string } // {B} the body, {N} the seq, {ID} the id
	delta := layout{`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"{B}"}}`,
		`{"type":"message_update","sessionId":{ID},"seq":{N},"messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"{B}"}}`}
	layouts := []struct {
		layout
		lines int
	}{
		{delta, 120},
		{layout{`{"type":"u","sessionId":"old","seq":7,"e":{"delta":"{B}"}}`, `{"type":"u","sessionId":{ID},"seq":{N},"e":{"delta":"{B}"}}`}, 90},
		// seq after the body moves with it; sessionId too.
		{layout{`{"type":"u","sessionId":"old","e":{"delta":"{B}"},"seq":7}`, `{"type":"u","sessionId":{ID},"e":{"delta":"{B}"},"seq":{N}}`}, 90},
		{layout{`{"type":"u","e":{"delta":"{B}"},"sessionId":"old"}`, `{"type":"u","seq":{N},"e":{"delta":"{B}"},"sessionId":{ID}}`}, 90},
		// A seq that some line's number matches; a stamped line (nothing to change but seq).
		{layout{`{"type":"u","x":1,"seq":250,"d":"{B}"}`, `{"type":"u","sessionId":{ID},"x":1,"seq":{N},"d":"{B}"}`}, 90},
		{layout{`{"type":"u","sessionId":{ID},"seq":340,"d":"{B}"}`, `{"type":"u","sessionId":{ID},"seq":{N},"d":"{B}"}`}, 90},
		// No type: the members go first.
		{layout{`{"e":{"delta":"{B}"}}`, `{"sessionId":{ID},"seq":{N},"e":{"delta":"{B}"}}`}, 90},
		// The body is the type's, or the sessionId's.
		{layout{`{"type":"{B}","z":1}`, `{"type":"{B}","sessionId":{ID},"seq":{N},"z":1}`}, 90},
		{layout{`{"type":"u","sessionId":"{B}"}`, `{"type":"u","seq":{N},"sessionId":{ID}}`}, 90},
		{layout{` { "type" : "u" , "d" : "{B}" } `, ` { "type" : "u","sessionId":{ID},"seq":{N} , "d" : "{B}" } `}, 90},
		{delta, 200},
	}
	bodies := []string{"0001 ", "", "a", `\"`, `\\`, `\u00e9\n`, `\ud83d\ude00 `, "seq", strings.Repeat("long ", 80), `\"sessionId\":1,`}
	var in, want strings.Builder
	n := 0
	for k, l := range layouts {
		for i := range l.lines {
			n++
			body := bodies[(i+k)%len(bodies)]
			if i%3 == 0 {
				body += fmt.Sprint(i) // the line before repeated but for its number
			}
			in.WriteString(strings.NewReplacer("{B}", body, "{ID}", id).Replace(l.in) + "\n")
			want.WriteString(strings.NewReplacer("{B}", body, "{ID}", id, "{N}", fmt.Sprint(n)).Replace(l.want) + "\n")
		}
	}
	// A session line between: the line after it repeats it, not the line stamped before.
	in.WriteString(`{"a":1}` + "\n" + `{"id":"s2","type":"session"}` + "\n" + `{"id":"s2","type":"sessioN"}` + "\n")
	want.WriteString(fmt.Sprintf(`{"sessionId":%s,"seq":%d,"a":1}`, id, n+1) + "\n" + `{"id":"s2","type":"session"}` + "\n" +
		fmt.Sprintf(`{"id":"s2","type":"sessioN","sessionId":"s2","seq":%d}`, n+2) + "\n")
	n += 2
	if n < 1000 {
		t.Fatalf("%d lines: seq does not reach four digits", n)
	}
	stream := []byte(testHeaderLine + "\n" + in.String())
	for _, opts := range []stages.HeaderOptions{{Stamp: true, Seq: true}, {Stamp: true}, {Seq: true}} {
		opts.Header = testHeader
		got := header(t, stream, opts)
		apart := headerLineByLine(t, stream, opts)
		if !bytes.Equal(got, apart) {
			t.Errorf("%+v: read as a stream and line by line differ at %s", opts, firstDifference(string(got), string(apart)))
		}
		if opts.Stamp && opts.Seq && string(got) != testHeaderLine+"\n"+want.String() {
			t.Errorf("stamped: %s", firstDifference(string(got), testHeaderLine+"\n"+want.String()))
		}
	}
}

// headerLineByLine stamps each line of in in a frame of its own, which repeats no line.
func headerLineByLine(t testing.TB, in []byte, opts stages.HeaderOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	w := codec.NewLineWriter(&out)
	st := stages.NewHeader(opts)
	write := func(f *stages.Frame) error { return f.WriteLine(w) }
	for i, l := range lines(in) {
		if err := st.Push(stages.LineFrame(l, i+1), write); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Flush(write); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Streams where the line stamped last is repeated but for one string's body, and something
// decides against restamping it as that line was: each line comes out as it does when
// stamped on its own, and as written here ({ID} the header's id, {N} the next number).
func TestHeaderRestampsOnlyWhatRepeats(t *testing.T) {
	const id = `"0190c2a4-0000-7000-8000-000000000001"`
	cases := []struct {
		name string
		in   []string
		want []string // "" for the line as it is
	}{
		{"a session header between repeats: its id from then on", []string{
			`{"type":"u","d":"a"}`,
			`{"type":"u","d":"ab"}`,
			`{"type":"session","id":"s2","d":"ab"}`,
			`{"type":"u","d":"abc"}`,
			`{"type":"u","d":"abcd"}`,
			`{"type":"session","id":"s3","d":"abcd"}`,
			`{"type":"session","id":"s3","d":"abcde"}`, // repeats a header, not a stamped line
			`{"type":"u","d":"abcde"}`,
			`{"type":"u","d":"abcdef"}`,
		}, []string{
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"a"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"ab"}`,
			"",
			`{"type":"u","sessionId":"s2","seq":{N},"d":"abc"}`,
			`{"type":"u","sessionId":"s2","seq":{N},"d":"abcd"}`,
			"",
			"",
			`{"type":"u","sessionId":"s3","seq":{N},"d":"abcde"}`,
			`{"type":"u","sessionId":"s3","seq":{N},"d":"abcdef"}`,
		}},
		{"a type that becomes session, or is one escaped", []string{
			`{"type":"sessioN","id":"s4","d":"a"}`,
			`{"type":"session","id":"s4","d":"a"}`,
			`{"type":"sessio\u006e","id":"s5","d":"a"}`,
			`{"type":"sessio\u006e","id":"s5","d":"ab"}`,
			`{"type":"x","id":"s5","d":"ab"}`,
			`{"type":"x","id":"s5","d":"abc"}`,
		}, []string{
			`{"type":"sessioN","sessionId":{ID},"seq":{N},"id":"s4","d":"a"}`,
			"",
			"",
			"",
			`{"type":"x","sessionId":"s5","seq":{N},"id":"s5","d":"ab"}`,
			`{"type":"x","sessionId":"s5","seq":{N},"id":"s5","d":"abc"}`,
		}},
		{"invalid lines between repeats, some repeating the line before but for a bad body", []string{
			`{"type":"u","d":"a"}`,
			`{"type":"u","d":"a\q"}`,
			`{"type":"u","d":"ab"}`,
			`not json`,
			`{"type":"u","d":"abc"}`,
			"{\"type\":\"u\",\"d\":\"ab\x01\"}",
			`{"type":"u","d":"abcd"}`,
			`{"type":"u","d":"abcd`,
			`{"type":"u","d":"abcde"}`,
			"{\"type\":\"u\",\"d\":\"\xff\"}",
			``,
			`{"type":"u","d":"abcdef"}`,
			`{"type":"u","d":"abcdefg"}`,
		}, []string{
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"a"}`,
			"",
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"ab"}`,
			"",
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abc"}`,
			"",
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abcd"}`,
			"",
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abcde"}`,
			"",
			"",
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abcdef"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abcdefg"}`,
		}},
		{"CRLF lines, and a CRLF line after an LF line", []string{
			"{\"type\":\"u\",\"d\":\"a\"}\r",
			"{\"type\":\"u\",\"d\":\"ab\"}\r",
			"{\"type\":\"u\",\"d\":\"ab\"}",
			"{\"type\":\"u\",\"d\":\"abc\"}\r",
			"{\"type\":\"u\",\"d\":\"abc\\r\"}\r",
			"{\"type\":\"u\",\"d\":\"abc\\r\"} \r",
		}, []string{
			"{\"type\":\"u\",\"sessionId\":{ID},\"seq\":{N},\"d\":\"a\"}\r",
			"{\"type\":\"u\",\"sessionId\":{ID},\"seq\":{N},\"d\":\"ab\"}\r",
			"{\"type\":\"u\",\"sessionId\":{ID},\"seq\":{N},\"d\":\"ab\"}",
			"{\"type\":\"u\",\"sessionId\":{ID},\"seq\":{N},\"d\":\"abc\"}\r",
			"{\"type\":\"u\",\"sessionId\":{ID},\"seq\":{N},\"d\":\"abc\\r\"}\r",
			"{\"type\":\"u\",\"sessionId\":{ID},\"seq\":{N},\"d\":\"abc\\r\"} \r",
		}},
		{"the line's own seq and sessionId, then changed in the line before the body", []string{
			`{"type":"u","sessionId":"old","seq":5,"d":"a"}`,
			`{"type":"u","sessionId":"old","seq":5,"d":"ab"}`,
			`{"type":"u","sessionId":"new","seq":5,"d":"ab"}`,
			`{"type":"u","sessionId":"new","seq":5,"d":"abc"}`,
			`{"type":"u","sessionId":` + id + `,"seq":5,"d":"abc"}`,
			`{"type":"u","sessionId":` + id + `,"seq":5,"d":"abcd"}`,
			`{"type":"u","sessionId":` + id + `,"seq":7,"d":"abcd"}`,
			`{"type":"u","sessionId":` + id + `,"seq":7,"d":"abcde"}`,
		}, []string{
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"a"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"ab"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"ab"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abc"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abc"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abcd"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abcd"}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"d":"abcde"}`,
		}},
		{"several bodies changed, all after what is stamped or not", []string{
			`{"type":"u","a":"x","b":{"c":"y"},"d":["z"]}`,
			`{"type":"u","a":"xx","b":{"c":"y"},"d":["zz"]}`,
			`{"type":"u","a":"xx","b":{"c":"yy"},"d":["zzz"]}`,
			`{"type":"v","a":"xx","b":{"c":"yy"},"d":["zzzz"]}`,
			`{"type":"v","a":"xxx","b":{"c":"yy"},"d":["zzzz"]}`,
			`{"type":"vv","a":"xxx","b":{"c":"yy"},"d":["zzzz"]}`,
		}, []string{
			`{"type":"u","sessionId":{ID},"seq":{N},"a":"x","b":{"c":"y"},"d":["z"]}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"a":"xx","b":{"c":"y"},"d":["zz"]}`,
			`{"type":"u","sessionId":{ID},"seq":{N},"a":"xx","b":{"c":"yy"},"d":["zzz"]}`,
			`{"type":"v","sessionId":{ID},"seq":{N},"a":"xx","b":{"c":"yy"},"d":["zzzz"]}`,
			`{"type":"v","sessionId":{ID},"seq":{N},"a":"xxx","b":{"c":"yy"},"d":["zzzz"]}`,
			`{"type":"vv","sessionId":{ID},"seq":{N},"a":"xxx","b":{"c":"yy"},"d":["zzzz"]}`,
		}},
		{"a body before what is stamped: the type's, or a member's before type", []string{
			`{"k":"a","type":"u","d":"a"}`,
			`{"k":"ab","type":"u","d":"a"}`,
			`{"k":"ab","type":"v","d":"a"}`,
			`{"k":"ab","type":"vw","d":"a"}`,
			`{"k":"ab","type":"vw","d":"ab"}`,
		}, []string{
			`{"k":"a","type":"u","sessionId":{ID},"seq":{N},"d":"a"}`,
			`{"k":"ab","type":"u","sessionId":{ID},"seq":{N},"d":"a"}`,
			`{"k":"ab","type":"v","sessionId":{ID},"seq":{N},"d":"a"}`,
			`{"k":"ab","type":"vw","sessionId":{ID},"seq":{N},"d":"a"}`,
			`{"k":"ab","type":"vw","sessionId":{ID},"seq":{N},"d":"ab"}`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in, want strings.Builder
			in.WriteString(testHeaderLine + "\n")
			want.WriteString(testHeaderLine + "\n")
			n := 0
			for i, l := range c.in {
				in.WriteString(l + "\n")
				w := c.want[i]
				if w == "" {
					w = l
				} else {
					n++
					w = strings.NewReplacer("{ID}", id, "{N}", fmt.Sprint(n)).Replace(w)
				}
				want.WriteString(w + "\n")
			}
			opts := stages.HeaderOptions{Header: testHeader, Stamp: true, Seq: true}
			if got := header(t, []byte(in.String()), opts); string(got) != want.String() {
				t.Errorf("%s", firstDifference(string(got), want.String()))
			}
			sameStampedAlone(t, []byte(in.String()))
		})
	}
}

// Runs of repeats in which seq gains a digit (9 -> 10, 99 -> 100, 999 -> 1000), with the seq
// inserted, or the line's own rewritten, before the body, or after it (where the line is
// stamped anew): with and without sessionId.
func TestHeaderRestampsAsSeqGainsDigits(t *testing.T) {
	for _, layout := range []string{
		`{"type":"u","d":"%s"}`,
		`{"type":"u","seq":12,"d":"%s"}`,
		`{"type":"u","seq":123456,"d":"%s"}`,
		`{"type":"u","d":"%s","seq":0}`,
		` { "seq" : 1 , "d" : "%s" } `,
	} {
		var in strings.Builder
		for i := range 1010 {
			fmt.Fprintf(&in, layout+"\n", strings.Repeat("x", i%7))
		}
		for _, opts := range []stages.HeaderOptions{{Stamp: true, Seq: true}, {Seq: true}} {
			opts.Header = testHeader
			got := lines(header(t, []byte(in.String()), opts))
			for i, l := range got[1:] {
				if codec.CheckObject(l) != nil || string(codec.Find(l, "seq").Raw(l)) != fmt.Sprint(i+1) ||
					string(codec.Find(l, "d").Raw(l)) != `"`+strings.Repeat("x", i%7)+`"` ||
					codec.Find(l, "sessionId").Exists() != opts.Stamp {
					t.Fatalf("%s, %+v: line %d is %s", layout, opts, i+2, l)
				}
			}
		}
		sameStampedAlone(t, []byte(in.String()))
	}
}

// sameStampedAlone requires the header stage to stamp in as a stream (where the reader finds
// lines that repeat the line before, which the stage restamps) as it stamps each line of in
// in a frame of its own (where no line repeats another), with every set of options.
func sameStampedAlone(t *testing.T, in []byte) {
	t.Helper()
	for _, opts := range []stages.HeaderOptions{{Stamp: true, Seq: true}, {Stamp: true}, {Seq: true}, {}} {
		opts.Header = testHeader
		got := header(t, in, opts)
		alone := headerLineByLine(t, rawLines(in), opts)
		if !bytes.Equal(got, alone) {
			t.Fatalf("%+v: as a stream and line by line differ at %s", opts, firstDifference(string(got), string(alone)))
		}
	}
}

// rawLines is in with a last line without LF given one, so that lines splits it into the
// lines a reader reads: an LF alone is an empty line, and a CR stays in its line.
func rawLines(in []byte) []byte {
	if len(in) > 0 && in[len(in)-1] != '\n' {
		return append(in[:len(in):len(in)], '\n')
	}
	return in
}

// FuzzHeaderRestamp: on any input, with any options, the header stage stamps a stream as it
// stamps its lines one by one, each in a frame of its own: what it does with a line that
// repeats the line before (the reader finds them) is what it does with any line.
func FuzzHeaderRestamp(f *testing.F) {
	for _, in := range referenceStreams(f) {
		for _, form := range [][]byte{deltas(f, in), in} {
			ls := lines(form)
			for i := 0; i+12 <= len(ls) && i < 120; i += 12 { // runs of updates, small enough to mutate
				if seed := bytes.Join(ls[i:i+12], []byte("\n")); len(seed) <= 8<<10 {
					f.Add(seed)
				}
			}
		}
	}
	var nines strings.Builder
	for i := range 120 {
		fmt.Fprintf(&nines, `{"type":"u","seq":%d,"d":"%d"}`+"\n", i*7, i)
	}
	f.Add([]byte(nines.String()))
	f.Add([]byte("{\"type\":\"u\",\"d\":\"a\"}\r\n{\"type\":\"u\",\"d\":\"ab\"}\r\n{\"type\":\"u\",\"d\":\"a\\q\"}\n{\"type\":\"u\",\"d\":\"abc\"}\n" +
		"{\"type\":\"session\",\"id\":\"s\",\"d\":\"abc\"}\n{\"type\":\"u\",\"d\":\"abcd\"}\n{\"type\":\"u\",\"d\":\"abcde\"}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		sameStampedAlone(t, in)
	})
}
