package codec

import "bytes"

// Index lists the top-level members of a line, recorded while the line is validated, so
// that stages find the members they need without scanning the line a second time.
type Index struct {
	line    []byte
	keys    [][]byte // raw key bodies, aliasing line
	members []Member
	typ     int // index in members of the last "type", -1 when there is none
	notes   scanNotes

	// Room for the members of a typical event, so indexing one allocates nothing.
	keyStore    [8][]byte
	memberStore [8]Member
}

// CheckObjectIndexed is CheckObject that also records line's top-level members in ix
// (reusing its storage). ix is valid while line is.
func CheckObjectIndexed(line []byte, ix *Index) error {
	if ix.keys == nil {
		ix.keys, ix.members = ix.keyStore[:0], ix.memberStore[:0]
	}
	ix.line, ix.keys, ix.members, ix.typ, ix.notes = nil, ix.keys[:0], ix.members[:0], -1, scanNotes{}
	if indexObject(line, ix) {
		ix.line = line
		return nil
	}
	ix.keys, ix.members = ix.keys[:0], ix.members[:0]
	return CheckObject(line) // says what is wrong
}

// indexObject validates line as one object, recording its members. (A single loop over
// the tokens with an explicit stack, instead of a call per value, was tried: Go keeps its
// state in memory across the jumps, and it ran a third slower.)
func indexObject(b []byte, ix *Index) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
	var keys uint64 // keyBits of the keys so far
	checks := 0     // of keys whose bit was taken (see maxKeyChecks)
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		keyStart := i
		var ok bool
		if i, ok = validString(b, i+1); !ok {
			return false
		}
		key := b[keyStart+1 : i-1]
		bit := keyBit(key)
		if keys&bit != 0 && !ix.notes.sameKeys {
			ix.notes.sameKeys = checks == maxKeyChecks
			for _, k := range ix.keys {
				ix.notes.sameKeys = ix.notes.sameKeys || string(k) == string(key)
			}
			checks++
		}
		keys |= bit
		if string(key) == "type" {
			ix.typ = len(ix.members)
		}
		if i < len(b) && b[i] == ':' {
			i++
		} else if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
			return false
		} else {
			i++
		}
		valStart := SkipSpace(b, i)
		if valStart < len(b) && b[valStart] == '"' {
			i, ok = validString(b, valStart+1)
		} else if end := plainInt(b, valStart); end > valStart {
			i, ok = end, true
		} else {
			i, ok = validValue(b, valStart, 1, &ix.notes)
		}
		if !ok {
			return false
		}
		ix.keys = append(ix.keys, key)
		ix.members = append(ix.members, Member{KeyStart: keyStart, ValStart: valStart, ValEnd: i})
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
			continue
		}
		if i = SkipSpace(b, i); i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return SkipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
}

// Type is the line's top-level "type" member (the last of duplicates), the zero Member when
// it has none.
func (ix *Index) Type() Member {
	if ix.typ < 0 || ix.typ >= len(ix.members) {
		return Member{}
	}
	return ix.members[ix.typ]
}

// Unambiguous reports that EachAmbiguity would find nothing in the indexed line, known
// without walking it: no object has two keys with the same fingerprint, so none has a key
// twice as written, and the line has neither a \u escape (without which there is no lone
// surrogate, nor two spellings of one character but for "/") nor a \/ escape (the other
// spelling of "/"), so keys written differently are different keys. False means the line
// must be walked.
func (ix *Index) Unambiguous() bool {
	return ix.line != nil && !ix.notes.sameKeys && !hasEscapeOf(ix.line, 'u', '/')
}

// hasEscapeOf reports whether the string bodies of line (valid JSON) have an escape \a or \b.
func hasEscapeOf(line []byte, a, b byte) bool {
	for i := 0; ; i += 2 { // past a backslash and the byte it escapes
		k := bytes.IndexByte(line[i:], '\\')
		if k < 0 {
			return false
		}
		if i += k; i+1 < len(line) && (line[i+1] == a || line[i+1] == b) {
			return true
		}
	}
}

// Indexed reports whether ix holds the members of line.
func (ix *Index) Indexed(line []byte) bool {
	return ix.line != nil && len(ix.line) == len(line) && len(line) > 0 && &ix.line[0] == &line[0]
}

// FindEach is codec.FindEach over the recorded members: of duplicate keys the last wins.
func (ix *Index) FindEach(keys []string, found []Member) {
	clear(found)
	for j, k := range ix.keys {
		for i, key := range keys {
			if len(k) == len(key) && (len(k) == 0 || k[0] == key[0]) && string(k) == key {
				found[i] = ix.members[j]
				break
			}
		}
	}
}
