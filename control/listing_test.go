package control

import (
	"strings"
	"testing"
)

func TestUniquePrefix(t *testing.T) {
	ids := []string{
		"01a2aaaa-0001-7000-8000-000000000000",
		"01a2aaaa-0002-7000-8000-000000000000",
		"01a2aaaa-1000-7000-8000-000000000000",
		"01a2bbbb-0000-7000-8000-000000000000",
		"short",
	}
	got := map[string]string{}
	for _, id := range ids {
		got[id] = uniquePrefix(ids, id, 8)
	}
	want := map[string]string{
		ids[0]:  "01a2aaaa-0001", // shares "01a2aaaa-000" with ids[1]
		ids[1]:  "01a2aaaa-0002",
		ids[2]:  "01a2aaaa-1",
		ids[3]:  "01a2bbbb", // unique already, but never shorter than 8
		"short": "short",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("prefix of %s = %q, want %q", id, got[id], w)
		}
	}
	// An id there twice (an upstream name and ours) is shown whole.
	twice := []string{ids[0], ids[1], ids[1], ids[2]}
	if p := uniquePrefix(twice, ids[1], 8); p != ids[1] {
		t.Errorf("prefix of an id there twice = %q", p)
	}
	// Every prefix names its id alone.
	for id, p := range got {
		for _, other := range ids {
			if other != id && strings.HasPrefix(other, p) {
				t.Errorf("prefix %q of %s also matches %s", p, id, other)
			}
		}
		if len(p) < 8 && p != id {
			t.Errorf("prefix %q shorter than 8", p)
		}
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the failing test":     "Fix the failing test",
		"  two\nlines\tand  tabs ": "two lines and tabs",
		strings.Repeat("é", 60):    strings.Repeat("é", 49) + "…",
		strings.Repeat("x", 50):    strings.Repeat("x", 50),
		"":                         "",
	} {
		if got := title(in); got != want {
			t.Errorf("title(%q) = %q, want %q", in, got, want)
		}
	}
}
