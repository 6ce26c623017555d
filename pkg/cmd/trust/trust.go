// Package trust holds what the trust commands (policy, signers, approve,
// hooks, hook) share: how a policy commit is reported.
package trust

import (
	"fmt"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// PrintPolicyWrite reports a policy commit (policy set, signers add) as
// every write is reported; people are told unchanged when there was
// nothing to write.
func PrintPolicyWrite(p cmdutil.Printer, printWritten func(*service.WriteResult) error, res *service.WriteResult, unchanged string) error {
	if res.Unchanged && !p.JSONOn {
		_, err := fmt.Fprintln(p.Out, unchanged)
		return err
	}
	return printWritten(res)
}
