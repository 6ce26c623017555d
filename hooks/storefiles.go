package hooks

import (
	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// RuleTrust: after every commit, the files that say who may sign and act
// (.records/allowed_signers, .records/policy.yaml) parse.
const RuleTrust = "trust"

// checkTrustFiles holds a commit that writes the trust files to
// kernel.CheckTrustChange: a policy or init commit leaving a file that does
// not parse would make the store refuse every later commit, its repair too.
func (j *judge) checkTrustFiles(changes []gitstore.Change) error {
	if j.tc == nil || j.commit == nil {
		return nil
	}
	path := ""
	for _, c := range changes {
		if c.Path == gitstore.AllowedSignersPath || c.Path == gitstore.PolicyPath {
			path = c.Path
		}
	}
	if path == "" {
		return nil
	}
	after, err := j.tc.at(j.commit.Hash)
	if err != nil {
		return err
	}
	if err := kernel.CheckTrustChange(after); err != nil {
		j.violation(RuleTrust, "", path, "fix the file so it parses (git records policy set checks a policy before committing it)", "%s", messageOf(err))
	}
	return nil
}
