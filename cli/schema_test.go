package cli

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/basecontext/base-context/internal/exitcode"
)

var updateSchema = flag.Bool("update", false, "rewrite docs/schema/*.schema.json from `base-context schema`")

// The committed schemas are what `base-context schema` prints. After a change of the
// description, regenerate them with: go test ./cli -run TestSchemaFiles -update
func TestSchemaFiles(t *testing.T) {
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{"schema"}, "../docs/schema/line.schema.json"},
		{[]string{"schema", "--deltas"}, "../docs/schema/line-deltas.schema.json"},
		{[]string{"schema", "--rpc"}, "../docs/schema/rpc.schema.json"},
		{[]string{"schema", "--rpc=commands"}, "../docs/schema/rpc-commands.schema.json"},
		{[]string{"schema", "--rpc=output"}, "../docs/schema/rpc-output.schema.json"},
	} {
		var out, errOut bytes.Buffer
		if code := Run(c.args, IO{Out: &out, Err: &errOut}); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut.String())
		}
		if *updateSchema {
			if err := os.WriteFile(c.file, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(committed, out.Bytes()) {
			t.Errorf("%s differs from `base-context %v`; regenerate it: go test ./cli -run TestSchemaFiles -update", c.file, c.args)
		}
	}
}

// --rpc takes a direction or nothing; any other value is a usage error naming the choices.
func TestSchemaRPCDirection(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run([]string{"schema", "--rpc=input"}, IO{Out: &out, Err: &errOut}); code != exitcode.Usage || out.Len() != 0 ||
		!strings.Contains(errOut.String(), `one of commands, output (not "input")`) {
		t.Errorf("schema --rpc=input: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
