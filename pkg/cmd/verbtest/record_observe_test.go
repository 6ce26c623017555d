package verbtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	observecmd "github.com/git-records/git-records/pkg/cmd/record/observe"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
	"github.com/git-records/git-records/service"
)

// TestNewCmdObserve: the flags fill the snapshot's input and its source;
// without --payload-file it is refused before anything runs.
func TestNewCmdObserve(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *observecmd.ObserveOptions
	r := cmdtest.Run(f, observecmd.NewCmdObserve(f, func(o *observecmd.ObserveOptions) error { got = o; return nil }),
		"--extension", "github", "--external-id", "pull/42", "--external-url", "https://x/42", "--payload-file", "-",
		"--title", "PR 42", "--category", "github.pulls", "--agent", "watcher")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "snapshot", got.Input.Type, "the default type")
	assert.Equal(t, kernel.Source{Extension: "github", ExternalID: "pull/42", ExternalURL: "https://x/42"}, *got.Input.Source)
	assert.Equal(t, "-", got.PayloadFile)
	assert.Equal(t, "watcher", got.Input.Provenance.Agent)

	f, _, _, _ = st.Factory()
	e := cmdtest.Run(f, observecmd.NewCmdObserve(f, func(*observecmd.ObserveOptions) error { t.Fatal("ran"); return nil }), "--json", "--title", "t").
		Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--payload-file", e["flag"])
}

// TestObserveCoalesces: re-observing an unchanged snapshot writes no
// commit (the audit keeps the observation as an unchanged line); a changed
// one is a new snapshot record with its payload stored by hash; verify
// accepts the history.
func TestObserveCoalesces(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	payload := filepath.Join(t.TempDir(), "pr.json")
	require.NoError(t, os.WriteFile(payload, []byte(`{"number":42,"state":"open"}`), 0o644))
	observe := func(args ...string) map[string]any {
		f, _, _, _ := st.Factory()
		r := cmdtest.Run(f, observecmd.NewCmdObserve(f, nil), append([]string{"--json", "--extension", "github", "--external-id", "pull/42",
			"--title", "PR 42", "--category", "github.pulls", "--agent", "watcher"}, args...)...)
		require.Equal(t, 0, r.Code, r.String())
		var res map[string]any
		r.JSON(t, &res)
		return res
	}
	first := observe("--payload-file", payload)
	id, _ := first["id"].(string)
	require.NotEmpty(t, id)
	head := st.Tip(t)
	svc := st.Service(t)
	rec, err := svc.Show(id)
	require.NoError(t, err)
	assert.Equal(t, kernel.PayloadRef([]byte(`{"number":42,"state":"open"}`)), rec.Source.Payload)
	assert.Equal(t, kernel.KindSnapshot, rec.Kind)

	f, in, _, _ := st.Factory()
	in.WriteString(`{"number":42,"state":"open"}`)
	r := cmdtest.Run(f, observecmd.NewCmdObserve(f, nil), "--json", "--extension", "github", "--external-id", "pull/42",
		"--title", "PR 42", "--category", "github.pulls", "--agent", "watcher", "--payload-file", "-")
	require.Equal(t, 0, r.Code, r.String())
	var again map[string]any
	r.JSON(t, &again)
	assert.Equal(t, true, again["unchanged"], "an unchanged snapshot (here from stdin) is coalesced")
	assert.Equal(t, id, again["id"], "and names the snapshot that holds it")
	assert.Equal(t, head, st.Tip(t), "no commit")
	audit, err := svc.ReadAudit(time.Time{})
	require.NoError(t, err)
	require.NotEmpty(t, audit.Lines)
	last := audit.Lines[len(audit.Lines)-1]
	assert.Equal(t, kernel.AuditUnchanged, last.Result, "the observation is audited")
	assert.Equal(t, "observe", last.Op)

	require.NoError(t, os.WriteFile(payload, []byte(`{"number":42,"state":"merged"}`), 0o644))
	changed := observe("--payload-file", payload)
	assert.NotEqual(t, id, changed["id"], "a changed object is a new snapshot (snapshots are append-only)")
	assert.NotEqual(t, head, st.Tip(t))
	rep, err := svc.Verify("", service.VerifyOptions{})
	require.NoError(t, err)
	assert.True(t, rep.OK, "%+v", rep.Violations)

	f, _, _, _ = st.Factory()
	e := cmdtest.Run(f, observecmd.NewCmdObserve(f, nil), "--json", "--extension", "github", "--payload-file", payload, "--title", "t", "--category", "c", "--agent", "w").
		Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--external-id", e["flag"])
	f, _, _, _ = st.Factory()
	e = cmdtest.Run(f, observecmd.NewCmdObserve(f, nil), "--json", "--external-id", "x", "--payload-file", filepath.Join(t.TempDir(), "none"), "--agent", "w").
		Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--payload-file", e["flag"])
}
