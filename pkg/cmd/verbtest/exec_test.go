package verbtest

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmd/exec/await"
	"github.com/git-records/git-records/pkg/cmd/exec/continuecmd"
	"github.com/git-records/git-records/pkg/cmd/exec/endrun"
	"github.com/git-records/git-records/pkg/cmd/exec/endsession"
	"github.com/git-records/git-records/pkg/cmd/exec/list"
	"github.com/git-records/git-records/pkg/cmd/exec/manage"
	"github.com/git-records/git-records/pkg/cmd/exec/retiresandbox"
	"github.com/git-records/git-records/pkg/cmd/exec/start"
	logcmd "github.com/git-records/git-records/pkg/cmd/history/log"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// execCmd is the exec command with every verb, as root registers it.
func execCmd(f *cmdutil.Factory) *cobra.Command {
	return execcmd.NewCmdExec(start.NewCmdStart(f, nil), list.NewCmdList(f, nil), await.NewCmdAwait(f, nil),
		manage.NewCmdCancel(f, nil), manage.NewCmdClose(f, nil), endrun.NewCmdEndRun(f, nil),
		endsession.NewCmdEndSession(f, nil), retiresandbox.NewCmdRetireSandbox(f, nil))
}

// TestExecRun: execution records through the commands against a real
// store: what each prints, the errors that name the flag to fix, a
// sandbox that cannot retire while it owns open work, a session's
// carry-over, and end-session's cleanup commit.
func TestExecRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	exec := func(args ...string) cmdtest.Result { return st.RunIn(execCmd, args...) }
	jsonOf := func(args ...string) map[string]any {
		t.Helper()
		r := exec(append([]string{"--json"}, args...)...)
		require.Equal(t, 0, r.Code, r.String())
		var v map[string]any
		r.JSON(t, &v)
		return v
	}

	exec("--json", "start", "--title", "x", "--session", "s", "--agent", "a").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	e := exec("--json", "start", "--kind", "run", "--title", "x", "--agent", "a").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--session", e["flag"])
	exec("--json", "start", "--kind", "job", "--title", "x", "--session", "s", "--agent", "a").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)

	st.Create(t, kernel.CreateInput{Type: "execution.sandbox", ID: "sb", Title: "Sandbox", Category: "sandboxes", Body: "b"})
	run := jsonOf("start", "--kind", "run", "--title", "Nightly", "--session", "s", "--agent", "a", "--sandbox", "sb")["id"].(string)
	r := exec("start", "--kind", "background_task", "--title", "Index", "--parent-job", run, "--session", "s", "--agent", "a", "--keep-after-run")
	require.Equal(t, 0, r.Code, r.String())
	task := strings.TrimSpace(r.Stdout)

	assert.Len(t, jsonOf("list", "--owner", "s")["records"], 2)
	exec("--json", "list").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Contains(t, exec("list", "--owner", "nobody").Stdout, "owns no open execution records")

	r = st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return continuecmd.NewCmdContinue(f, nil) }, "--owner", "s")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "**background_task** `"+task+"` Index (open, depth 1, sandbox sb, survives run end)")
	assert.Contains(t, r.Stdout, "parent-job: `"+run+"` Nightly (open)")
	assert.Contains(t, r.Stdout, "children: `"+task+"` Index (open)")

	e = exec("--json", "retire-sandbox", "sb", "--agent", "ops", "--reason", "done").Error(t, kernel.CodeOpenRecords, cmdutil.ExitRefused)
	assert.ElementsMatch(t, []any{run, task}, e["open"])
	exec("--json", "end-session", "--session", "s", "--agent", "a").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	r = exec("await", task, "--session", "s", "--state", "archived")
	assert.Equal(t, 1, r.Code, "still open: %s", r)
	assert.Contains(t, r.Stderr, "is still open after 0s")
	exec("--json", "await", task, "--session", "s", "--state", "done").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)

	assert.ElementsMatch(t, []any{run, task}, jsonOf("end-session", "--session", "s", "--agent", "a", "--archive")["closed"])
	assert.Equal(t, true, jsonOf("await", task, "--session", "s", "--state", "archived")["reached"])
	assert.Contains(t, exec("retire-sandbox", "sb", "--agent", "ops", "--reason", "done").Stdout, "sb retired")
	r = st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return logcmd.NewCmdLog(f, nil) }, "-n", "2")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "cleanup")
}
