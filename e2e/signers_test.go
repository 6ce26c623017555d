package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two maintainers add a signer each on their own clone; the sync that
// replays the second policy commit on the first keeps both keys (the
// allowed signers' line merge), and the replayed commit verifies.
func TestConcurrentSignerAdditionsBothSurviveASync(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	x, y := w.add(t, "X", w.remote), w.add(t, "Y", w.remote)
	x.rec(t, "init", "--generate-key")
	y.rec(t, "init", "--generate-key")

	a.rec(t, "signers", "add", x.email, x.pubKey(t), "--rationale", "x joins", "--agent", "A")
	b.rec(t, "signers", "add", y.email, y.pubKey(t), "--rationale", "y joins", "--agent", "B")
	a.sync(t)
	out := b.sync(t) // both changed allowed_signers since their merge base
	assert.Contains(t, out, "replayed 1 commits")
	a.sync(t)

	signers := gitc(t, a.dir, "show", "records:.records/allowed_signers")
	for _, c := range []*clone{a, b, x, y} {
		assert.Contains(t, signers, strings.Fields(c.pubKey(t))[1], "%s's key is allowed", c.name)
	}
	require.Equal(t, a.tip(), b.tip())
	requireValid(t, a.dir)
	requireValid(t, b.dir)
}
