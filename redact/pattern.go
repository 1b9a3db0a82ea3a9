package redact

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// userPattern is a --pattern: Go's regexp finds its matches, and a small NFA simulation of
// the same program tells a stream how much of its tail could still become a match, which
// regexp cannot say.
type userPattern struct {
	re   *regexp.Regexp
	prog *syntax.Prog
	rule int
	// first marks the bytes a match may start with: the first byte of a rune the
	// program may read first.
	first [256]bool

	// The simulation's thread lists, reused.
	cur, nxt threadList
}

func compilePattern(p string) (*userPattern, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if hasAnchor(tree) {
		// A string arrives in pieces, and a piece's edges are not the string's.
		return nil, errors.New(`^, $, \A and \z are not supported`)
	}
	if re.MatchString("") {
		return nil, errors.New("it matches the empty string")
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, err
	}
	up := &userPattern{re: re, prog: prog}
	up.markFirst(uint32(prog.Start), make([]bool, len(prog.Inst)))
	up.cur.init(len(prog.Inst))
	up.nxt.init(len(prog.Inst))
	return up, nil
}

// markFirst marks in p.first the bytes that may begin a rune read first from pc: what the
// instructions reachable without reading (past any assertion) match.
func (p *userPattern) markFirst(pc uint32, seen []bool) {
	if seen[pc] {
		return
	}
	seen[pc] = true
	inst := &p.prog.Inst[pc]
	switch inst.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		p.markFirst(inst.Out, seen)
		p.markFirst(inst.Arg, seen)
	case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
		p.markFirst(inst.Out, seen)
	case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		for c := range utf8.RuneSelf {
			p.first[c] = p.first[c] || inst.MatchRune(rune(c))
		}
		// Any rune of two bytes or more, or an invalid byte read as utf8.RuneError, may be
		// one the instruction matches (a case fold of an ASCII letter, too).
		for c := utf8.RuneSelf; c < 256; c++ {
			p.first[c] = true
		}
	default: // InstMatch: an empty match (refused), InstFail
		for c := range p.first {
			p.first[c] = true
		}
	}
}

// patternFrom reports whether a pattern's match may start at a position of w from i on.
func (r *Redactor) patternFrom(w []byte, i int) bool {
	for _, p := range r.patterns {
		for k := i; k < len(w); k++ {
			if p.first[w[k]] {
				return true
			}
		}
	}
	return false
}

func hasAnchor(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	}
	for _, s := range re.Sub {
		if hasAnchor(s) {
			return true
		}
	}
	return false
}

// nextPattern returns the leftmost hit of any pattern at or after pos.
func (r *Redactor) nextPattern(w []byte, pos int, atEOF bool) hit {
	best := hit{start: len(w)}
	for _, p := range r.patterns {
		if h := p.next(w, pos, atEOF); h.status != noMatch && (best.status == noMatch || h.start < best.start) {
			best = h
		}
	}
	return best
}

func (p *userPattern) next(w []byte, pos int, atEOF bool) hit {
	m := hit{start: len(w)}
	for from := pos; from <= len(w); {
		loc := p.re.FindIndex(w[from:])
		if loc == nil {
			break
		}
		if loc[0] < loc[1] {
			m = hit{status: match, start: from + loc[0], end: from + loc[1], rule: p.rule}
			break
		}
		from += loc[0] + 1 // an empty match in context (\b): not a redaction
	}
	if !atEOF {
		if q := p.liveFrom(w, max(pos, len(w)-maxHold)); q >= 0 && (m.status == noMatch || q <= m.start) {
			return hit{status: needMore, start: q}
		}
	}
	return m
}

// liveFrom simulates the pattern over w[from:], starting a thread at every position, and
// returns the earliest start of a thread still alive at the end of w (one that more text
// could take to a match), or -1.
func (p *userPattern) liveFrom(w []byte, from int) int {
	cur, next := &p.cur, &p.nxt
	cur.clear()
	for at := from; ; {
		prev := rune(-1)
		if at > 0 {
			prev, _ = utf8.DecodeLastRune(w[:at])
		}
		if at == len(w) {
			p.add(cur, uint32(p.prog.Start), at, prev, -1, true)
			break
		}
		r, size := utf8.DecodeRune(w[at:])
		p.add(cur, uint32(p.prog.Start), at, prev, r, false)
		next.clear()
		nextRune := rune(-1)
		if at+size < len(w) {
			nextRune, _ = utf8.DecodeRune(w[at+size:])
		}
		for _, t := range cur.dense {
			inst := &p.prog.Inst[t.pc]
			switch inst.Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				if inst.MatchRune(r) {
					p.add(next, inst.Out, t.start, r, nextRune, at+size == len(w))
				}
			}
		}
		cur, next = next, cur
		at += size
	}
	live := -1
	for _, t := range cur.dense {
		switch p.prog.Inst[t.pc].Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL, syntax.InstEmptyWidth:
			if live < 0 || t.start < live {
				live = t.start
			}
		}
	}
	return live
}

// add puts the thread at pc (and what it reaches without reading) in l. Threads added
// earlier keep their place, so each pc keeps its earliest start. An empty-width assertion
// that depends on the rune after the end of w stays in the list, undecided.
func (p *userPattern) add(l *threadList, pc uint32, start int, prev, next rune, atEnd bool) {
	if l.has(pc) {
		return
	}
	l.put(pc, start)
	inst := &p.prog.Inst[pc]
	switch inst.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		p.add(l, inst.Out, start, prev, next, atEnd)
		p.add(l, inst.Arg, start, prev, next, atEnd)
	case syntax.InstCapture, syntax.InstNop:
		p.add(l, inst.Out, start, prev, next, atEnd)
	case syntax.InstEmptyWidth:
		if atEnd {
			return // undecided until the next rune arrives
		}
		if syntax.EmptyOp(inst.Arg)&^syntax.EmptyOpContext(prev, next) == 0 {
			p.add(l, inst.Out, start, prev, next, atEnd)
		}
	}
}

type thread struct {
	pc    uint32
	start int
}

// threadList is a sparse set of program counters, in insertion order.
type threadList struct {
	sparse []uint32
	dense  []thread
}

func (l *threadList) init(n int) {
	l.sparse = make([]uint32, n)
	l.dense = make([]thread, 0, n)
}

func (l *threadList) clear() { l.dense = l.dense[:0] }

func (l *threadList) has(pc uint32) bool {
	i := l.sparse[pc]
	return int(i) < len(l.dense) && l.dense[i].pc == pc
}

func (l *threadList) put(pc uint32, start int) {
	l.sparse[pc] = uint32(len(l.dense))
	l.dense = append(l.dense, thread{pc, start})
}
