package verbtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	contractcmd "github.com/git-records/git-records/pkg/cmd/agent/contract"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// call runs one contract op with req on stdin.
func call(st *cmdtest.Store, op, req string) cmdtest.Result {
	f, in, _, _ := st.Factory()
	in.WriteString(req)
	return cmdtest.Run(f, contractcmd.NewCmdContract(f, nil), op)
}

// TestNewCmdContract: the op is the one argument.
func TestNewCmdContract(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *contractcmd.ContractOptions
	r := cmdtest.Run(f, contractcmd.NewCmdContract(f, func(o *contractcmd.ContractOptions) error { got = o; return nil }), "get")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "get", got.Op)
	assert.True(t, f.JSON, "a contract call answers JSON, errors too")
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, contractcmd.NewCmdContract(f, nil), "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestContractRun: a write answers its result (create: the id) and is
// audited as the contract's; a read answers {"result":…}; every refusal
// is the JSON envelope with exit 1, our finer input codes folded into
// MISSING_EVIDENCE with store_code kept.
func TestContractRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	r := call(st, "create", `{"input":{"type":"concept","title":"Via contract","body":"b","category":"eng","provenance":{"agent":"adapter"}}}`)
	require.Equal(t, 0, r.Code, r.String())
	var created struct{ Result string }
	r.JSON(t, &created)
	require.NotEmpty(t, created.Result)

	var got struct{ Result map[string]any }
	call(st, "get", `{"id":"`+created.Result+`"}`).JSON(t, &got)
	assert.Equal(t, "Via contract", got.Result["title"])
	var ops struct{ Result struct{ Ops []string } }
	call(st, "capabilities", "").JSON(t, &ops)
	assert.Equal(t, contractcmd.Ops, ops.Result.Ops)

	r = call(st, "update", `{"id":"`+created.Result+`","fields":{"title":"Renamed"},"evidence":{"agent":"adapter"}}`)
	require.Equal(t, 0, r.Code, r.String())
	assert.JSONEq(t, `{"result":null}`, r.Stdout, "a write other than create answers null")

	e := call(st, "create", `{"input":{"id":"../x","type":"concept","title":"t","body":"b","category":"eng","provenance":{"agent":"a"}}}`).
		Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, string(kernel.CodeInvalidID), e["store_code"])
	call(st, "create", `{"input":`).Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	call(st, "frobnicate", `{}`).Error(t, kernel.CodeUsage, cmdutil.ExitRefused)
	r = call(st, "get", `{"id":"no-such-record"}`)
	require.Equal(t, 0, r.Code, r.String())
	assert.JSONEq(t, `{"result":null}`, r.Stdout, "get of nothing is null, as the contract says")

	audit, err := os.ReadFile(filepath.Join(st.Dir, ".git", "records", "audit.jsonl"))
	require.NoError(t, err)
	assert.Regexp(t, `"op":"create".*"front":"contract"|"front":"contract".*"op":"create"`, string(audit), "audited as the contract's call")
}
