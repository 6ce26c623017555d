package transfer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

var simpleYAMLSeeds = []string{
	"tags: [bench, topic-12]\naliases: [N12]\n",
	"title: Token refresh\ntags: [a, b c, d.e]\n\nalias: Home\n",
	"k: [a , b ]\nl: e1\n",
	"tags: [x, yes]\n", "draft: true\n", "n: 1\n", "rating: 5\n", "date: 2026-01-02\n",
	"tags: []\n", "tags: [a,]\n", "a: b\na: c\n", "key: value # comment\n", "key: 'quoted'\n",
	"nested:\n  - a\n", "k: v\r\n", "k:\n", "k: .inf\n", "k: ~\n", "Y: n\n", "k: a  b\n",
	"k: v\n  \n", "ключ: v\n", "k: NULL\n", "k: Off\n", "k: [On]\n", "k: x: y\n",
}

// The fast path answers exactly as yaml.v3 does, or leaves the input to it.
func FuzzSimpleYAML(f *testing.F) {
	for _, s := range simpleYAMLSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := simpleYAML([]byte(s))
		if !ok {
			return
		}
		var want map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(s), &want), "%q", s)
		require.Equal(t, want, got, "%q", s)
	})
}

// The front matter of most notes takes the fast path; anything a YAML
// resolver could read as other than a string does not.
func TestSimpleYAMLTakesOnlyPlainWords(t *testing.T) {
	for _, s := range simpleYAMLSeeds[:3] {
		got, ok := simpleYAML([]byte(s))
		require.True(t, ok, "%q", s)
		var want map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(s), &want))
		assert.Equal(t, want, got)
	}
	for _, s := range simpleYAMLSeeds[3:] {
		_, ok := simpleYAML([]byte(s))
		assert.False(t, ok, "%q goes to yaml.v3", s)
	}
	// Through the front matter parser: a repeated key is still refused.
	_, err := parseNote("dup.md", []byte("---\na: b\na: c\n---\nBody.\n"))
	assert.Error(t, err)
}
