package session

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// slowList is what List returns without an index: every file scanned.
func slowList(t *testing.T, dir string) []Info {
	t.Helper()
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var infos []Info
	for _, f := range files {
		if info, err := Scan(filepath.Join(dir, f.Name)); err == nil {
			infos = append(infos, info)
		}
	}
	sort.SliceStable(infos, func(i, j int) bool {
		if infos[i].LastActivity != infos[j].LastActivity {
			return infos[i].LastActivity > infos[j].LastActivity
		}
		return infos[i].ID > infos[j].ID
	})
	return infos
}

func userEntry(n int, ts string) string {
	return fmt.Sprintf(`{"type":"message","id":"%08d","parentId":null,"timestamp":"%s","message":{"role":"user","content":"prompt %d","timestamp":1}}`+"\n", n, ts, n)
}

// generated writes n sessions in two directories, every fifth with a cut last line.
func generated(t *testing.T, n int) string {
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		lines := []string{userEntry(1, fmt.Sprintf("2026-02-%02dT00:00:%02d.000Z", 1+i%27, i%60))}
		if i%5 == 0 {
			lines = append(lines, `{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-03-01T00:00:00.000Z","message":{"role":"assis`)
		}
		writeSession(t, dir, codec.Header{Version: 3, ID: fmt.Sprintf("id-%04d", i), Timestamp: "2026-01-01T00:00:00.000Z", Cwd: fmt.Sprintf("/p%d", i%2)}, lines...)
	}
	return dir
}

func listed(t *testing.T, dir string) []Info {
	t.Helper()
	infos, _, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

// TestIndexAgreesWithScans: the list from the index is the list from scanning every file,
// whatever state the index is in, and follows files that change.
func TestIndexAgreesWithScans(t *testing.T) {
	dir := generated(t, 60)
	want := slowList(t, dir)
	if got := listed(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("first list (index built) differs from the scans")
	}
	if _, err := os.Stat(filepath.Join(dir, indexName)); err != nil {
		t.Fatalf("no index: %v", err)
	}
	if got := listed(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("list from the index differs from the scans")
	}

	// A file appended to, one truncated, one removed, one added: the index is stale for them.
	f, _ := os.OpenFile(filepath.Join(dir, "id-0003.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(userEntry(9, "2026-04-01T00:00:00.000Z"))
	f.Close()
	os.Truncate(filepath.Join(dir, "id-0004.jsonl"), 60)
	os.Remove(filepath.Join(dir, "id-0006.jsonl"))
	writeSession(t, dir, codec.Header{Version: 3, ID: "id-new", Timestamp: "2026-01-01T00:00:00.000Z", Cwd: "/p0"}, userEntry(1, "2026-05-01T00:00:00.000Z"))
	want = slowList(t, dir)
	if got := listed(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("list after changes differs from the scans")
	}
	if want[0].ID != "id-new" || want[1].ID != "id-0003" {
		t.Fatalf("newest %s, %s", want[0].ID, want[1].ID)
	}
	newest, ok, err := Newest(dir, func(cwd string) bool { return cwd == "/p1" })
	if err != nil || !ok || newest.ID != "id-0003" {
		t.Errorf("Newest of /p1: %s %v %v", newest.ID, ok, err)
	}

	// Corrupt, another version, empty: rebuilt, with the same list.
	for _, content := range []string{"\x00\x01", "{\"version\":99}\n", "", "garbage"} {
		os.WriteFile(filepath.Join(dir, indexName), []byte(content), 0o600)
		if got := listed(t, dir); !reflect.DeepEqual(got, want) {
			t.Fatalf("list with the index %q differs from the scans", content)
		}
		if loadIndex(dir) == nil {
			t.Fatalf("index %q not rebuilt", content)
		}
	}
}

// TestIndexUpdatedAtOnce: listings at once, while files grow, leave an index that agrees
// with the scans.
func TestIndexUpdatedAtOnce(t *testing.T) {
	dir := generated(t, 40)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				f, _ := os.OpenFile(filepath.Join(dir, fmt.Sprintf("id-%04d.jsonl", g*10+i)), os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString(userEntry(5, "2026-06-01T00:00:00.000Z"))
				f.Close()
				List(dir)
			}
		}(g)
	}
	wg.Wait()
	if got, want := listed(t, dir), slowList(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatal("list after concurrent updates differs from the scans")
	}
}

// TestUpstreamNames: the upstream's <timestamp>_<id>.jsonl files are found by id and listed.
func TestUpstreamNames(t *testing.T) {
	dir := t.TempDir()
	id := "01a24998-83b4-7cc5-8900-b1fd0a242155"
	data := fmt.Sprintf(`{"type":"session","version":3,"id":"%s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`+"\n", id) + userEntry(1, "2026-01-01T00:00:01.000Z")
	name := "2026-01-01T00-00-00-000Z_" + id + ".jsonl"
	os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600)
	for _, q := range []string{id, id[:8]} {
		path, err := Find(dir, q)
		if err != nil || path != filepath.Join(dir, name) {
			t.Errorf("Find(%s) = %s, %v", q, path, err)
		}
	}
	if infos := listed(t, dir); len(infos) != 1 || infos[0].ID != id {
		t.Errorf("List: %+v", infos)
	}
	if IDOf(filepath.Join(dir, name)) != id {
		t.Errorf("IDOf %s", IDOf(name))
	}
}
