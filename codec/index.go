package codec

// Index lists the top-level members of a line, recorded while the line is validated, so
// that stages find the members they need without scanning the line a second time.
type Index struct {
	line    []byte
	keys    [][]byte // raw key bodies, aliasing line
	members []Member

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
	ix.line, ix.keys, ix.members = nil, ix.keys[:0], ix.members[:0]
	if indexObject(line, ix) {
		ix.line = line
		return nil
	}
	ix.keys, ix.members = ix.keys[:0], ix.members[:0]
	return CheckObject(line) // says what is wrong
}

// indexObject validates line as one object, recording its members.
func indexObject(b []byte, ix *Index) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
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
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		valStart := SkipSpace(b, i+1)
		if i, ok = validValue(b, valStart, 1); !ok {
			return false
		}
		ix.keys = append(ix.keys, key)
		ix.members = append(ix.members, Member{KeyStart: keyStart, ValStart: valStart, ValEnd: i})
		i = SkipSpace(b, i)
		if i >= len(b) {
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

// Indexed reports whether ix holds the members of line.
func (ix *Index) Indexed(line []byte) bool {
	return ix.line != nil && len(ix.line) == len(line) && len(line) > 0 && &ix.line[0] == &line[0]
}

// FindEach is codec.FindEach over the recorded members: of duplicate keys the last wins.
func (ix *Index) FindEach(keys []string, found []Member) {
	clear(found)
	for j, k := range ix.keys {
		for i, key := range keys {
			if string(k) == key {
				found[i] = ix.members[j]
				break
			}
		}
	}
}
