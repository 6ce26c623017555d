package hooks_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// TestPolicyDecide is the rule matcher as a table over
// testdata/hooks/policy-rich.yaml: the most specific rule wins (principal
// and category, then principal, then category by longest prefix, then the
// default), and the chosen profile's ops, types and categories decide.
func TestPolicyDecide(t *testing.T) {
	t.Parallel()
	p, err := kernel.ParsePolicy([]byte(fixture(t, "policy-rich.yaml")))
	require.NoError(t, err)
	const dave, erin, nobody = "dave@example.com", "erin@example.com", "nobody@example.com"
	for _, c := range []struct {
		principal, op, typ, category string
		allowed                      bool
		rule, reason                 string
	}{
		{nobody, "create", "concept", "ops", false, "default → read-only", "profile read-only does not allow create"},
		{nobody, "create", "concept", "eng", true, "category eng → contributor", "profile contributor allows create"},
		{nobody, "create", "concept", "eng.api.v2", true, "category eng → contributor", ""},
		{nobody, "create", "concept", "engineering", false, "default → read-only", "" /* a prefix ends at a dot */},
		{nobody, "apply", "concept", "eng", false, "category eng → contributor", "profile contributor does not allow apply"},
		{nobody, "reject", "concept", "eng.auth", true, "category eng.auth → reviewer", "profile reviewer allows reject"},
		{nobody, "create", "review.finding", "eng.auth.oauth", true, "category eng.auth → reviewer", "" /* inherited op */},
		{nobody, "create", "person", "eng.auth", false, "category eng.auth → reviewer", "profile reviewer does not allow type person"},
		{nobody, "apply", "concept", "eng.auth.tokens", true, "category eng.auth.tokens → maintainer", "" /* longest prefix */},
		{nobody, "policy", "person", "eng.auth.tokens.refresh", true, "category eng.auth.tokens → maintainer", ""},
		{nobody, "policy", "", "", false, "default → read-only", "" /* store-level ops match no category rule */},
		{dave, "retire", "concept", "archive.2020", true, "principal dave@example.com → archivist", ""},
		{dave, "retire", "concept", "misc", false, "principal dave@example.com → archivist", "profile archivist does not allow category misc"},
		{dave, "create", "concept", "eng", false, "principal dave@example.com → archivist", "profile archivist does not allow create" /* principal beats category */},
		{dave, "apply", "concept", "eng.auth.tokens", true, "principal dave@example.com, category eng.auth → auth-editor", "" /* principal+category beats a longer category */},
		{dave, "apply", "person", "eng.auth", false, "principal dave@example.com, category eng.auth → auth-editor", "profile auth-editor does not allow type person" /* types inherited */},
		{dave, "retire", "concept", "eng.auth", false, "principal dave@example.com, category eng.auth → auth-editor", "profile auth-editor does not allow retire"},
		{erin, "create", "concept", "eng", false, "principal erin@example.com → read-only", ""},
		{nobody, "frobnicate", "concept", "eng", false, "", `unknown op "frobnicate"`},
	} {
		name := strings.Join([]string{c.principal, c.op, c.typ, c.category}, " ")
		t.Run(name, func(t *testing.T) {
			d := p.Decide(c.principal, kernel.Op(c.op), c.typ, c.category)
			assert.Equal(t, c.allowed, d.Allowed, "%+v", d)
			assert.Equal(t, c.rule, d.Rule, "%+v", d)
			if c.reason != "" {
				assert.Equal(t, c.reason, d.Reason)
			}
			assert.NotEmpty(t, d.Reason, "a decision always says why")
		})
	}

	t.Run("approval follows the op's risk", func(t *testing.T) {
		for op, needs := range map[kernel.Op]bool{kernel.OpCreate: false, kernel.OpApply: false, kernel.OpRetire: false, kernel.OpPolicy: true} {
			d := p.Decide(nobody, op, "concept", "eng.auth.tokens")
			assert.Equal(t, needs, d.NeedsApproval, "%s at require_approval destructive: %+v", op, d)
			assert.Equal(t, kernel.OpSpecs()[op].Risk, d.Risk)
		}
		q, err := kernel.ParsePolicy([]byte("version: 1\nrequire_approval: external_mutation\nrules:\n  - profile: maintainer\n"))
		require.NoError(t, err)
		for op, needs := range map[kernel.Op]bool{kernel.OpCreate: false, kernel.OpPropose: false, kernel.OpApply: true, kernel.OpSupersede: true, kernel.OpRetire: true, kernel.OpPolicy: true} {
			assert.Equal(t, needs, q.Decide(nobody, op, "concept", "eng").NeedsApproval, "%s", op)
		}
	})

	t.Run("no default rule", func(t *testing.T) {
		q, err := kernel.ParsePolicy([]byte("version: 1\nrules:\n  - principal: dave@example.com\n    profile: maintainer\n"))
		require.NoError(t, err)
		d := q.Decide(nobody, kernel.OpCreate, "concept", "eng")
		assert.False(t, d.Allowed)
		assert.Equal(t, "(none)", d.Rule)
		assert.True(t, q.Decide(dave, kernel.OpCreate, "concept", "eng").Allowed)
	})

	t.Run("default policy: every signer maintains", func(t *testing.T) {
		d := kernel.DefaultPolicy.Decide(nobody, kernel.OpPolicy, "", "")
		assert.True(t, d.Allowed)
		assert.False(t, d.NeedsApproval)
		assert.Equal(t, "default → maintainer", d.Rule)
	})
}

// TestParsePolicy: a policy that does not say exactly what it means is
// refused, with the reason, rather than read as something else.
func TestParsePolicy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, yaml, says string }{
		{"broken YAML", "version: 1\nrules: [\n", "policy.yaml: yaml:"},
		{"not a mapping", "- profile: maintainer\n", "policy.yaml: yaml:"},
		{"unknown profile in a rule", "version: 1\nrules:\n  - profile: superuser\n", `unknown profile "superuser"`},
		{"rule without a profile", "version: 1\nrules:\n  - principal: a@b\n", `unknown profile ""`},
		{"misspelt key", "version: 1\nrule:\n  - profile: maintainer\n", "field rule not found"},
		{"duplicate key", "version: 1\nversion: 1\nrules: []\n", "already defined"},
		{"missing version", "rules:\n  - profile: maintainer\n", "version must be 1"},
		{"future version", "version: 2\nrules: []\n", "version must be 1"},
		{"bad require_approval", "version: 1\nrequire_approval: sometimes\nrules: []\n", `require_approval "sometimes" is not a risk level`},
		{"redefined built-in", "version: 1\nprofiles:\n  maintainer:\n    ops: [create]\nrules: []\n", `profile "maintainer" is built in`},
		{"inherits cycle", "version: 1\nprofiles:\n  a:\n    inherits: b\n  b:\n    inherits: a\nrules:\n  - profile: a\n", "cycle"},
		{"inherits unknown", "version: 1\nprofiles:\n  a:\n    inherits: nobody\nrules: []\n", `unknown profile "nobody"`},
		{"unknown op in a profile", "version: 1\nprofiles:\n  a:\n    ops: [create, creat]\nrules: []\n", `profile "a": unknown op "creat"`},
		{"unknown type in a profile", "version: 1\nprofiles:\n  a:\n    ops: [create]\n    types: [concpet]\nrules: []\n", `profile "a": unknown type "concpet"`},
		{"bad category in a profile", "version: 1\nprofiles:\n  a:\n    ops: [create]\n    categories: [Eng Auth]\nrules: []\n", `profile "a": invalid category "Eng Auth"`},
		{"bad category in a rule", "version: 1\nrules:\n  - category: Eng Auth\n    profile: maintainer\n", `rule 1: invalid category "Eng Auth"`},
		{"alias bomb", "version: 1\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nrules: []\n", "policy.yaml:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := kernel.ParsePolicy([]byte(c.yaml))
			require.Error(t, err)
			assert.True(t, kernel.IsCode(err, kernel.CodeInvalidRecord), "%v", err)
			assert.Contains(t, err.Error(), c.says)
		})
	}
	for _, name := range []string{"policy.yaml", "policy-approval.yaml", "policy-carol-maintainer.yaml", "policy-rich.yaml"} {
		_, err := kernel.ParsePolicy([]byte(fixture(t, name)))
		assert.NoError(t, err, name)
	}
}

// auditLines reads .git/records/audit.jsonl.
func auditLines(t testing.TB, dir string) []kernel.AuditLine {
	t.Helper()
	f, err := os.Open(filepath.Join(gitDir(t, dir), "records", "audit.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []kernel.AuditLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		e, err := kernel.ParseAuditLine(sc.Bytes())
		require.NoError(t, err, "audit line %q", sc.Text())
		out = append(out, e)
	}
	return out
}

// objectCount counts the objects in a repository (loose and packed).
func objectCount(t testing.TB, dir string) int {
	t.Helper()
	return len(strings.Fields(git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")))
}

// requireDenied checks a refusal by the gate: exit 4, PERMISSION_DENIED
// with the rule, nothing written, and one more line in the audit log.
func requireDenied(t testing.TB, dir string, args []string, rule, says string) kernel.AuditLine {
	t.Helper()
	tip, objects, audits := revParse(t, dir, "refs/heads/records"), objectCount(t, dir), len(auditLines(t, dir))
	r := rec(t, dir, args...)
	require.Equal(t, 4, r.code, "%s", r)
	assert.Contains(t, r.stderr, "git-records: PERMISSION_DENIED: ")
	assert.Contains(t, r.stderr, says)
	assert.Equal(t, tip, revParse(t, dir, "refs/heads/records"), "the ref did not move")
	assert.Equal(t, objects, objectCount(t, dir), "no object was written")
	lines := auditLines(t, dir)
	require.Len(t, lines, audits+1, "one audit line per denial")
	e := lines[len(lines)-1]
	assert.Equal(t, rule, e.Rule)
	assert.NotEmpty(t, e.Reason)
	assert.Equal(t, kernel.AuditDenied, e.Result)
	assert.Equal(t, "PERMISSION_DENIED", e.Code)
	assert.Empty(t, e.EvidenceRefs.Commit, "a denial wrote no commit")
	_, err := kernel.ParseTimestamp(e.Time)
	assert.NoError(t, err, "audit time %q", e.Time)

	// The same refusal as JSON carries the rule as a field.
	r = rec(t, dir, append([]string{"--json"}, args...)...)
	require.Equal(t, 4, r.code, "%s", r)
	var env struct{ Error map[string]any }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &env), "%s", r)
	assert.Equal(t, "PERMISSION_DENIED", env.Error["code"])
	assert.Contains(t, env.Error["rule"], strings.TrimPrefix(rule, "require_approval: "))
	require.Len(t, auditLines(t, dir), audits+2)
	return e
}

// TestGate drives the CLI's policy gate: denied ops are refused before
// anything is written and audited; ops the policy marks for approval need
// --approve, carry Approved-By, and verify accepts them; a commit that
// skipped the gate is caught by verify.
func TestGate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)

	t.Run("contributor's apply is denied", func(t *testing.T) {
		dir := w.carolClone(t)
		e := requireDenied(t, dir, []string{"apply", w.concept, "--proposer", w.finding, "--rationale", "right", "--body", "new", "--agent", "carol"},
			"principal carol@example.com → contributor",
			"carol@example.com may not apply concept in eng.auth: profile contributor does not allow apply (rule: principal carol@example.com → contributor)")
		assert.Equal(t, carol, e.Principal)
		assert.Equal(t, "apply", e.Op)
		assert.Contains(t, e.EvidenceRefs.Records, w.concept)
		assert.Equal(t, "profile contributor does not allow apply", e.Reason)
	})

	t.Run("contributor's policy change is denied", func(t *testing.T) {
		dir := w.carolClone(t)
		e := requireDenied(t, dir, []string{"policy", "set", fixturePath(t, "policy-carol-maintainer.yaml"), "--rationale", "promote me", "--agent", "carol"},
			"principal carol@example.com → contributor", "profile contributor does not allow policy")
		assert.Equal(t, "policy", e.Op)
	})

	t.Run("a key outside allowed_signers is refused before writing", func(t *testing.T) {
		dir := w.cliClone(t)
		git(t, dir, "config", "records.signingKey", malloryKey)
		git(t, dir, "config", "user.email", "mallory@example.com")
		e := requireDenied(t, dir, []string{"create", "--type", "concept", "--title", "t", "--category", "eng", "--agent", "m", "--body", "b"},
			"allowed_signers", "is not in .records/allowed_signers, so no commit it signs would verify: ask a maintainer to run: git records signers add mallory@example.com 'ssh-ed25519 ")
		assert.Equal(t, "mallory@example.com", e.Principal, "the audit names the committer the key claims to be")
	})

	t.Run("require_approval", func(t *testing.T) {
		dir := w.cliClone(t)
		mustRec(t, dir, "policy", "set", fixturePath(t, "policy-approval.yaml"), "--rationale", "applies need a second look", "--agent", userEmail)
		apply := []string{"apply", w.concept, "--proposer", w.finding, "--rationale", "the finding is right", "--body", "Rotate on every refresh.", "--agent", userEmail}

		requireDenied(t, dir, apply, "require_approval: external_mutation", "apply is a external_mutation-risk op and the policy requires approval: rerun with --approve")

		// carol signs an approval (with her key, --key), but her profile
		// does not allow apply.
		req, command := approvalRequest(t, dir, apply)
		token := strings.TrimSpace(mustRec(t, dir, append(strings.Fields(strings.TrimPrefix(command, "git records ")), "--key", carolKey)...))
		requireDenied(t, dir, append(apply, "--approval", token), "principal carol@example.com → contributor",
			"approver carol@example.com may not approve apply")
		assert.Equal(t, kernel.OpApply, req.Op)

		// create is below the approval level.
		create(t, dir, "--type", "concept", "--title", "No approval needed", "--category", "eng", "--agent", userEmail, "--body", "b")

		mustRec(t, dir, append(apply, "--approve")...)
		ts := trailers(t, dir, "refs/heads/records")
		assert.Equal(t, []string{"apply"}, trailerValues(ts, "Record-Op"))
		assert.Equal(t, []string{userEmail}, trailerValues(ts, "Approved-By"), "git reads the approval: %q", ts)
		mustRec(t, dir, "verify")
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "the approved apply passes the server:\n%s", r)

		// The same apply written past the gate has no Approved-By: verify
		// and the server refuse it.
		d := w.cliClone(t)
		mustRec(t, d, "propose", w.concept, "--proposer", w.finding, "--proposal", "again", "--agent", userEmail)
		mutateAs(t, d, w.apply(userEmail))
		rep := verifyJSON(t, d, 1, "records~1..records")
		require.Len(t, rep.Violations, 1)
		assert.Equal(t, hooks.RuleApproval, rep.Violations[0].Rule)
		assert.Contains(t, rep.Violations[0].Message, "apply is a external_mutation op and the policy requires approval, but the commit has no Approved-By")
		requireRejected(t, push(t, d, "records"), "approval", "has no Approved-By")
	})
}

// TestPolicyCLI: policy show prints the policy in force, policy check
// explains one decision with its rule, as text (exit 0 allowed, 1 denied)
// and as JSON.
func TestPolicyCLI(t *testing.T) {
	t.Parallel()
	dir := initStore(t)
	out := mustRec(t, dir, "policy", "show")
	assert.Contains(t, out, "# no .records/policy.yaml on the branch: every allowed signer is a maintainer\n")
	assert.Contains(t, out, "profile: maintainer")
	r := rec(t, dir, "policy", "check", carol, "policy", "", "")
	assert.Equal(t, 0, r.code, "%s", r)

	mustRec(t, dir, "policy", "set", fixturePath(t, "policy-rich.yaml"), "--rationale", "r", "--agent", userEmail)
	out = mustRec(t, dir, "policy", "show")
	assert.NotContains(t, out, "# no .records/policy.yaml")
	assert.Contains(t, out, "require_approval: destructive")
	assert.Contains(t, out, "auth-editor:")

	r = rec(t, dir, "policy", "check", "dave@example.com", "apply", "concept", "eng.auth.tokens")
	require.Equal(t, 0, r.code, "%s", r)
	assert.Equal(t, "allowed: profile auth-editor allows apply\nrule: principal dave@example.com, category eng.auth → auth-editor\nrisk: external_mutation\n", r.stdout)

	r = rec(t, dir, "policy", "check", "dave@example.com", "create", "concept", "eng")
	require.Equal(t, 1, r.code, "%s", r)
	assert.Equal(t, "denied: profile archivist does not allow create\nrule: principal dave@example.com → archivist\nrisk: writes_local_state\n", r.stdout)

	r = rec(t, dir, "policy", "check", "x@example.com", "policy", "concept", "eng.auth.tokens")
	require.Equal(t, 0, r.code, "%s", r)
	assert.Contains(t, r.stdout, "needs approval: rerun the op with --approve (yourself) or --approval TOKEN (from the approver's git records approve)\n")

	d := mustJSON[kernel.Decision](t, dir, "policy", "check", "dave@example.com", "apply", "concept", "eng.auth.tokens")
	assert.Equal(t, kernel.Decision{Allowed: true, Profile: "auth-editor", Rule: "principal dave@example.com, category eng.auth → auth-editor",
		Reason: "profile auth-editor allows apply", Risk: kernel.RiskExternalMutation}, d)

	// A broken policy is refused at set, before anything is written.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("version: 1\nrules:\n  - profile: superuser\n"), 0o644))
	tip := revParse(t, dir, "refs/heads/records")
	r = rec(t, dir, "policy", "set", bad, "--rationale", "r", "--agent", userEmail)
	assert.Equal(t, 1, r.code, "%s", r)
	assert.Contains(t, r.stderr, "INVALID_RECORD")
	assert.Contains(t, r.stderr, `unknown profile "superuser"`)
	assert.Equal(t, tip, revParse(t, dir, "refs/heads/records"))
}
