package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/basecontext/base-context/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

// The acceptance tests in testdata/script run the real command line as a separate process:
// testscript re-executes this test binary as `base-context`.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"base-context": func() { os.Exit(cli.Main()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mockserver": cmdMockserver,
			"replay":     cmdReplay,
			"waitfor":    cmdWaitfor,
			"headerid":   cmdHeaderID,
			"controlraw": cmdControlRaw,
			"tcplisten":  cmdTCPListen,
		},
		Condition: scriptCondition,
		Setup: func(env *testscript.Env) error {
			dir, err := filepath.Abs("../testdata")
			env.Setenv("TESTDATA", dir)
			// Each script has a home of its own (runs register under <home>/run); a script
			// can set another.
			env.Setenv("BASE_CONTEXT_HOME", filepath.Join(env.WorkDir, ".base-context"))
			env.Setenv("MCPNODE", filepath.Join(dir, "..", "mcp", "testdata", "node", "node_modules", "@modelcontextprotocol"))
			return err
		},
	})
}
