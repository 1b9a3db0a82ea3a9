package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Skills and prompt templates through the upstream's RpcClient (rpc/testdata/node/skills.mjs):
// get_commands in the upstream's shape, a template and /skill:NAME expanded, skill_activated.
func TestRPCUpstreamSkills(t *testing.T) {
	bin, err := exec.LookPath("base-context")
	if err != nil {
		t.Fatal(err)
	}
	node, nodeDir := upstreamNode(t)
	dir := t.TempDir()
	for path, text := range map[string]string{
		".git/HEAD":                       "ref: refs/heads/main\n",
		".agents/skills/greet/SKILL.md":   "---\nname: greet\ndescription: Greets the user warmly.\n---\nSay \"Hello!\".\n",
		".base-context/prompts/review.md": "---\ndescription: Review a path\n---\nReview $1 for $2.\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := writeScript(t, t.TempDir(),
		map[string]any{"tool_calls": []map[string]any{{"id": "call_read", "name": "read", "args": []string{`{"path": ".agents/skills/greet/SKILL.md"}`}}}},
		map[string]any{"text": []string{"reviewed"}},
		map[string]any{"text": []string{"Hello!"}},
		map[string]any{"text": []string{"?"}},
	)
	cmd := exec.Command(node, filepath.Join(nodeDir, "skills.mjs"))
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "BASE_CONTEXT_BIN="+bin, "BASE_CONTEXT_HOME="+filepath.Join(t.TempDir(), ".home"),
		"WORKDIR="+dir, "SCRIPT="+script)
	out, err := cmd.CombinedOutput()
	t.Logf("skills.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the upstream RpcClient failed: %v", err)
	}
	if !strings.Contains(string(out), "ok templates, skills") {
		t.Fatal("skills.mjs did not run to its end")
	}
}
