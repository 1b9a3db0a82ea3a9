package session

import (
	"strings"
	"testing"
)

// A session named by a user or a client must be a regular file: /dev/zero would be read
// without end.
func TestSessionFilesAreRegularFiles(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{"/dev/zero", dir} {
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Read(%s): %v", path, err)
		}
		if _, err := ReadHeader(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadHeader(%s): %v", path, err)
		}
	}
	if _, _, err := Resume("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Resume(/dev/zero): %v", err)
	}
}
