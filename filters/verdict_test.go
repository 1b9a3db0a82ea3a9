package filters

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The last error line is found past lines longer than the bound, which are skipped whole
// (an "error: " inside one is not a line of ours), and the last line may lack its newline.
func TestLastErrorLine(t *testing.T) {
	dir := t.TempDir()
	long := "error: " + strings.Repeat("x", 3*errorLineMax) + "\n"
	for _, c := range []struct{ text, want string }{
		{"", ""},
		{"warning: w\nerror: first\nerror: second\n", "second"},
		{"error: before\n" + long, "before"},
		{long + "error: after", "after"},
	} {
		path := filepath.Join(dir, "stderr")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LastErrorLine(path)
		if err != nil || got != c.want {
			t.Errorf("%.40q: %q, %v; want %q", c.text, got, err, c.want)
		}
	}
}

// A device is refused, not read without end.
func TestLastErrorLineRefusesADevice(t *testing.T) {
	if _, err := LastErrorLine("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v, want a refusal", err)
	}
}
