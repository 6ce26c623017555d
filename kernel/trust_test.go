package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	aliceKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPrvPwsNF7j4XIV6uNrH6SWcR//sJDWysRsCIFNDuylo"
	carolKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJPYoSorxMINXmWC9Fho6QyhhNUi5GyYmq3YTTx0g2W/"

	aliceLine = `alice@example.com namespaces="git" ` + aliceKey + "\n"
	carolLine = `carol@example.com namespaces="git" ` + carolKey + "\n"

	carolMaintains   = "version: 1\nrules:\n  - profile: maintainer\n"
	carolContributes = "version: 1\nrules:\n  - profile: maintainer\n  - principal: carol@example.com\n    profile: contributor\n"
	carolReadOnly    = "version: 1\nrules:\n  - profile: maintainer\n  - principal: carol@example.com\n    profile: read-only\n"
)

func fpOf(t *testing.T, line string) string {
	t.Helper()
	s, err := ParseAllowedSigners([]byte(line))
	require.NoError(t, err)
	return s[0].Fingerprint
}

func TestTrustMapsKeysToPrincipals(t *testing.T) {
	tr := NewTrust([]byte("# team\n"+aliceLine+"bob@example.com,alice@example.com "+aliceKey+"\n"+carolLine), []byte(carolContributes))
	require.NoError(t, tr.Err())
	assert.Equal(t, "alice@example.com", tr.Principal(fpOf(t, aliceLine)), "the first line holding the key names its principal")
	assert.Equal(t, "carol@example.com", tr.Principal(fpOf(t, carolLine)))
	assert.Equal(t, "", tr.Principal("SHA256:nobody"))
	assert.True(t, tr.Decide("alice@example.com", OpApply, "concept", "eng").Allowed)
	assert.False(t, tr.Decide("carol@example.com", OpApply, "concept", "eng").Allowed)

	ca := NewTrust([]byte(`carol@example.com cert-authority `+carolKey+"\n"), nil)
	assert.Equal(t, "", ca.Principal(fpOf(t, carolLine)), "a CA key signs through certificates, not as itself")

	none := NewTrust(nil, nil)
	assert.False(t, none.ListsSigners())
	assert.True(t, none.Decide("anyone", OpPolicy, "", "").Allowed, "no policy file: the default policy")
}

// TestBrokenTrustAllowsNothing: a store whose allowed_signers or policy does
// not parse allows nothing to anyone, says why and how to repair it; the
// repair (a policy commit) is judged under the last trust that parsed.
func TestBrokenTrustAllowsNothing(t *testing.T) {
	good := NewTrust([]byte(aliceLine), []byte(carolMaintains))
	for name, tr := range map[string]*Trust{
		"policy":          NewTrust([]byte(aliceLine), []byte("version: 1\nrules: [\n")),
		"allowed_signers": NewTrust([]byte(aliceLine+"carol@example.com ssh-ed25519 AAAAnotakey\n"), []byte(carolMaintains)),
	} {
		t.Run(name, func(t *testing.T) {
			require.Error(t, tr.Err())
			assert.True(t, IsCode(tr.Err(), CodeInvalidRecord))
			assert.Contains(t, tr.Err().Error(), name)
			assert.Empty(t, tr.Signers())
			assert.Equal(t, "", tr.Principal(fpOf(t, aliceLine)))
			for _, op := range []Op{OpCreate, OpPolicy, OpMerge} {
				d := tr.Decide("alice@example.com", op, "", "")
				assert.False(t, d.Allowed, "%s", op)
				assert.Equal(t, "trust", d.Rule)
				assert.Contains(t, d.Reason, "git records policy set")
			}
			refusal := tr.Refusal()
			require.NotNil(t, refusal)
			assert.Equal(t, CodePermissionDenied, refusal.Code)
			assert.Contains(t, refusal.Message, "repairs it with a policy commit")

			repairable := tr.WithLastGood(good)
			assert.Same(t, good, repairable.For(OpPolicy), "the repair is judged under the last trust that parsed")
			assert.Same(t, repairable, repairable.For(OpCreate), "nothing else is")
			assert.Same(t, tr, tr.For(OpPolicy), "without a trust that parsed, nothing")
		})
	}
	assert.Nil(t, good.Refusal())
	assert.Same(t, good, good.WithLastGood(NewTrust(nil, nil)))
}

// TestMergeTrustIsTheNewest: a merge, and what it brings in, are judged
// under the newest trust either side carries, whichever parent is first: a
// side that lacks a later revocation or demotion cannot undo it.
func TestMergeTrustIsTheNewest(t *testing.T) {
	base := NewTrust([]byte(aliceLine+carolLine), []byte(carolMaintains))
	carolFP := fpOf(t, carolLine)
	orders := map[string]func(stale, current *Trust) *Trust{
		"stale side first":   func(stale, current *Trust) *Trust { return MergeTrust(base, stale, current) },
		"current side first": func(stale, current *Trust) *Trust { return MergeTrust(base, current, stale) },
	}
	for order, merge := range orders {
		t.Run(order, func(t *testing.T) {
			removed := merge(base, NewTrust([]byte(aliceLine), []byte(carolMaintains)))
			assert.Equal(t, "", removed.Principal(carolFP), "a removed key stays removed")
			assert.Equal(t, "alice@example.com", removed.Principal(fpOf(t, aliceLine)))

			demoted := merge(base, NewTrust([]byte(aliceLine+carolLine), []byte(carolContributes)))
			assert.False(t, demoted.Decide("carol@example.com", OpRetire, "concept", "eng").Allowed, "a demotion holds")
			assert.True(t, demoted.Decide("carol@example.com", OpCreate, "concept", "eng").Allowed)

			// Both sides changed the policy (carol, still maintainer on her
			// side, made herself read-only there too but differently): both
			// must allow.
			both := merge(NewTrust([]byte(aliceLine+carolLine), []byte(carolReadOnly)), NewTrust([]byte(aliceLine+carolLine), []byte(carolContributes)))
			assert.False(t, both.Decide("carol@example.com", OpCreate, "concept", "eng").Allowed)
			assert.True(t, both.Decide("alice@example.com", OpApply, "concept", "eng").Allowed)
		})
	}

	t.Run("keys each side added are kept", func(t *testing.T) {
		onlyAlice := NewTrust([]byte(aliceLine), []byte(carolMaintains))
		m := MergeTrust(onlyAlice, NewTrust([]byte(aliceLine+carolLine), []byte(carolMaintains)),
			NewTrust([]byte(aliceLine+"dave@example.com "+aliceKey+"\n"), []byte(carolMaintains)))
		assert.Equal(t, "carol@example.com", m.Principal(carolFP))
		require.NoError(t, m.Err())
	})

	t.Run("a broken side breaks the merge", func(t *testing.T) {
		m := MergeTrust(base, base, NewTrust([]byte(aliceLine), []byte("nonsense: [")))
		assert.Error(t, m.Err())
		assert.False(t, m.Decide("alice@example.com", OpCreate, "concept", "eng").Allowed)
	})
}
