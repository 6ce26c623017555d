// Package goldmarkext is goldmark's extension package (v1.8.7, MIT, see
// LICENSE), cut to the GitHub Flavored Markdown extensions git-records uses
// (GFM: linkify, table, strikethrough, task list), with one change: its
// regular expressions are compiled on first use instead of at package
// initialisation.
//
// Why: every git-records process initialises every package linked into it,
// and goldmark/extension's package-level regexps (the linkify ones carry
// {1,256} repetitions, which compile to large programs) cost ~2.7 ms of
// each process's start, more than a third of what git's own --version
// takes, for commands that never render Markdown (show, links, --version).
// The parsing and rendering code is upstream's, unchanged; only the
// variables became functions. The table extension's parsing half (its
// paragraph and AST transformers) is in gfmtable, so that what only parses
// (wikilink.Extract) links no renderer. To update: copy the five files from
// the new goldmark release, redo the lazyRegexp substitutions, and move
// table.go's parsing code (escapedPipeCell to tableASTTransformer) into
// gfmtable.
package goldmarkext

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first call; the pattern is a constant, so
// MustCompile cannot panic except for a bug caught by the package's tests.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
