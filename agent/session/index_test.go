package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// loadIndex is every entry of dir's index, nil when it has none or is not valid.
func loadIndex(dir string) []indexEntry {
	idx := openIndex(dir)
	var entries []indexEntry
	for e := (indexEntry{}); idx.next(&e); {
		entries = append(entries, e)
	}
	if idx.bad || idx.off != len(idx.s) {
		return nil
	}
	return entries
}

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
	os.WriteFile(filepath.Join(dir, oldIndexNames[0]), []byte("an earlier version's index"), 0o600)
	want := slowList(t, dir)
	if got := listed(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("first list (index built) differs from the scans")
	}
	if _, err := os.Stat(filepath.Join(dir, indexName)); err != nil {
		t.Fatalf("no index: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, oldIndexNames[0])); !os.IsNotExist(err) {
		t.Errorf("the earlier version's index is left: %v", err)
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
	os.WriteFile(filepath.Join(dir, "id-0010x.jsonl"), []byte("not a session\n"), 0o600) // amid the others
	want = slowList(t, dir)
	if got := listed(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("list after changes differs from the scans")
	}
	if idx := loadIndex(dir); len(idx) != len(want) {
		t.Fatalf("the index holds %d files, want the %d readable ones", len(idx), len(want))
	}
	if want[0].ID != "id-new" || want[1].ID != "id-0003" {
		t.Fatalf("newest %s, %s", want[0].ID, want[1].ID)
	}
	newest, ok, err := Newest(dir, func(cwd string) bool { return cwd == "/p1" })
	if err != nil || !ok || newest.ID != "id-0003" {
		t.Errorf("Newest of /p1: %s %v %v", newest.ID, ok, err)
	}

	// Corrupt (a byte changed, cut short), another version, empty: rebuilt, with the same
	// list.
	good, err := os.ReadFile(filepath.Join(dir, indexName))
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x20
	for _, content := range []string{"\x00\x01", "{\"version\":99}\n", "", "garbage", string(flipped),
		string(good[:len(good)/2]), strings.Replace(string(good), "index 2", "index 9", 1)} {
		os.WriteFile(filepath.Join(dir, indexName), []byte(content), 0o600)
		if got := listed(t, dir); !reflect.DeepEqual(got, want) {
			t.Fatalf("list with the index %q differs from the scans", content)
		}
		if idx := loadIndex(dir); len(idx) != len(want) {
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

// TestNewestN: a page is the head of the whole sorted list, ties included.
func TestNewestN(t *testing.T) {
	var infos []Info
	for i := range 300 {
		infos = append(infos, Info{ID: fmt.Sprintf("id-%03d", i%97), Path: fmt.Sprintf("/s/%03d", i),
			LastActivity: fmt.Sprintf("2026-01-%02d", 1+(i*7)%13)})
	}
	all := slices.Clone(infos)
	SortNewest(all)
	for _, n := range []int{1, 2, 13, 50, 299, 300, 301, 0} {
		got := NewestN(slices.Clone(infos), n)
		want := all
		if n > 0 && n < len(all) {
			want = all[:n]
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("NewestN(%d) is not the head of the sorted list", n)
		}
	}
}
