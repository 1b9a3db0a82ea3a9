package report

// diffLine is a line of a diff: op ' ' (kept), '-' (removed) or '+' (added).
type diffLine struct {
	op   byte
	text string
}

// maxDiffCells bounds the work of the longest-common-subsequence table; past it an edit
// shows as all its old lines removed and all its new ones added.
const maxDiffCells = 1 << 20

// lineDiff is the line diff of an edit, by the longest common subsequence of its lines.
func lineDiff(a, b []string) []diffLine {
	var out []diffLine
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] { // the common head and tail need no table
		out = append(out, diffLine{' ', a[0]})
		a, b = a[1:], b[1:]
	}
	var tail []diffLine
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		tail = append(tail, diffLine{' ', a[len(a)-1]})
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for _, l := range a {
			out = append(out, diffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, diffLine{'+', l})
		}
	} else {
		out = append(out, lcs(a, b)...)
	}
	for i := len(tail) - 1; i >= 0; i-- {
		out = append(out, tail[i])
	}
	return out
}

func lcs(a, b []string) []diffLine {
	n, m := len(a), len(b)
	// t[i][j]: the length of the LCS of a[i:] and b[j:].
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, diffLine{'-', a[i]})
	}
	for ; j < m; j++ {
		out = append(out, diffLine{'+', b[j]})
	}
	return out
}
