package service

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestOneLineIsFieldsJoined: the fast path returns a title as it is only
// when collapsing its whitespace would not change it.
func TestOneLineIsFieldsJoined(t *testing.T) {
	for _, s := range []string{"", " ", "a", "Seed record 283: Link finding", "a  b", " a", "a ", "a\tb", "a\nb",
		"a\u00a0b", "a\u2003b", "a\u0085b", "é b", "a\x7fb", "a \u3000", "x\r"} {
		if got, want := OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", s, got, want)
		}
	}
}

// linkLinesByMap is LinkLines as it was, with a map of every end (and each
// line's first edge, where its title is): the reference
// TestLinkLinesAsByMap holds the map-free path to.
func linkLinesByMap(edges []Edge, end func(Edge) string) []LinkLine {
	out := make([]LinkLine, 0, len(edges))
	at := make(map[string]int, len(edges))
	for n, e := range edges {
		k := end(e)
		i, ok := at[k]
		if !ok {
			i, at[k] = len(out), len(out)
			out = append(out, LinkLine{End: k, First: n})
		}
		l := &out[i]
		if !slices.Contains(l.Kinds, e.Kind) {
			l.Kinds = append(l.Kinds, e.Kind)
		}
		if e.Label != "" && !slices.Contains(l.Labels, e.Label) {
			l.Labels = append(l.Labels, e.Label)
		}
	}
	return out
}

// TestLinkLinesAsByMap: on edges in the order of their ends (as the index
// gives backlinks), in any order, with ends repeated next to each other or
// far apart, LinkLines and EachLinkLine give the lines a map of every end
// gives.
func TestLinkLinesAsByMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ends := []string{"a", "b", "bb", "c", "d", "e"}
	kinds := []string{"related", "source", "wikilink"}
	labels := []string{"", "", "x", "y"}
	source := func(e Edge) string { return e.Source }
	ordered, unordered := 0, 0
	for range 5000 {
		edges := make([]Edge, rng.IntN(12))
		for i := range edges {
			edges[i] = Edge{Source: ends[rng.IntN(len(ends))], Kind: kinds[rng.IntN(len(kinds))], Label: labels[rng.IntN(len(labels))]}
		}
		if rng.IntN(2) == 0 {
			slices.SortStableFunc(edges, func(a, b Edge) int { return strings.Compare(a.Source, b.Source) })
		}
		if slices.IsSortedFunc(edges, func(a, b Edge) int { return strings.Compare(a.Source, b.Source) }) {
			ordered++
		} else {
			unordered++
		}
		want := linkLinesByMap(edges, source)
		if got := LinkLines(edges, source); !reflect.DeepEqual(got, want) {
			t.Fatalf("LinkLines(%v) = %v, want %v", edges, got, want)
		}
		// EachLinkLine gives the same lines, one LinkLine filled again.
		clone := func(s []string) []string { // an empty slice as nil, as LinkLines leaves it
			if len(s) == 0 {
				return nil
			}
			return slices.Clone(s)
		}
		got := []LinkLine{}
		EachLinkLine(edges, source, func(l LinkLine) {
			got = append(got, LinkLine{End: l.End, First: l.First, Kinds: clone(l.Kinds), Labels: clone(l.Labels)})
		})
		for i := range want {
			want[i].Kinds, want[i].Labels = clone(want[i].Kinds), clone(want[i].Labels)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("EachLinkLine(%v) = %v, want %v", edges, got, want)
		}
	}
	if ordered < 1000 || unordered < 1000 {
		t.Fatalf("ordered %d, unordered %d: the cases do not cover both paths", ordered, unordered)
	}
}

// TestLineFillerCopiesWhatItKeeps: fed edges whose strings are views of
// one buffer written again before each (as EachBacklink gives them), a
// copying lineFiller gives the lines and first titles EachLinkLine and
// the edges' own titles give.
func TestLineFillerCopiesWhatItKeeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	ends := []string{"a", "b", "bbbbbbbbbbbbbbbbbbbbbbbbbb", "c"}
	kinds := []string{"related", "source", "wikilink"}
	labels := []string{"", "", "x", strings.Repeat("y", 700)}
	source := func(e Edge) string { return e.Source }
	for range 500 {
		edges := make([]Edge, rng.IntN(14))
		for i := range edges {
			edges[i] = Edge{Source: ends[rng.IntN(len(ends))], Kind: kinds[rng.IntN(len(kinds))], Label: labels[rng.IntN(len(labels))]}
		}
		slices.SortStableFunc(edges, func(a, b Edge) int { return strings.Compare(a.Source, b.Source) })
		title := func(i int) string { return "title of edge " + strings.Repeat("z", i) }
		type line struct {
			LinkLine
			title string
		}
		var want []line
		EachLinkLine(edges, source, func(l LinkLine) {
			want = append(want, line{LinkLine{End: l.End, First: l.First, Kinds: slices.Clone(l.Kinds), Labels: slices.Clone(l.Labels)}, title(l.First)})
		})
		var got []line
		f := lineFiller{copy: true, fn: func(l LinkLine, tt EndTitle) {
			got = append(got, line{LinkLine{End: strings.Clone(l.End), First: l.First, Kinds: cloneAll(l.Kinds), Labels: cloneAll(l.Labels)}, strings.Clone(tt.Text)})
		}}
		buf := make([]byte, 4096)
		for i, e := range edges {
			for j := range buf {
				buf[j] = '#' // what the filler did not copy reads as garbage
			}
			n := copy(buf, e.Source)
			n += copy(buf[n:], e.Kind)
			n += copy(buf[n:], e.Label)
			copy(buf[n:], title(i))
			o := 0
			s := func(k int) string { v := unsafeView(buf[o : o+k]); o += k; return v }
			f.add(s(len(e.Source)), s(len(e.Kind)), s(len(e.Label)), EndTitle{Text: s(len(title(i))), OK: true})
		}
		for j := range buf {
			buf[j] = '#'
		}
		f.done()
		for i := range want {
			if len(want[i].Kinds) == 0 {
				want[i].Kinds = nil
			}
			if len(want[i].Labels) == 0 {
				want[i].Labels = nil
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("lineFiller(%v) = %v, want %v", edges, got, want)
		}
	}
}

func cloneAll(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.Clone(v)
	}
	return out
}

func unsafeView(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(&p[0], len(p))
}
