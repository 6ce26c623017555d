package service

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/git-records/git-records/gitstore"
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
func linkLinesByMap(edges []gitstore.Edge, end func(gitstore.Edge) string) []LinkLine {
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
	source := func(e gitstore.Edge) string { return e.Source }
	ordered, unordered := 0, 0
	for range 5000 {
		edges := make([]gitstore.Edge, rng.IntN(12))
		for i := range edges {
			edges[i] = gitstore.Edge{Source: ends[rng.IntN(len(ends))], Kind: kinds[rng.IntN(len(kinds))], Label: labels[rng.IntN(len(labels))]}
		}
		if rng.IntN(2) == 0 {
			slices.SortStableFunc(edges, func(a, b gitstore.Edge) int { return strings.Compare(a.Source, b.Source) })
		}
		if slices.IsSortedFunc(edges, func(a, b gitstore.Edge) int { return strings.Compare(a.Source, b.Source) }) {
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
