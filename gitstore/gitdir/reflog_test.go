package gitdir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"
)

// Reflogs start where git would start them: for branches in a repository
// with a working tree, not in a bare one unless core.logAllRefUpdates says
// so; an existing reflog is always appended to.
func TestReflogsFollowLogAllRefUpdates(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		name   string
		bare   bool
		config string
		want   bool
	}{
		{"work tree, default", false, "", true},
		{"bare, default", true, "", false},
		{"bare, always", true, "always", true},
		{"work tree, false", false, "false", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"init", "-q"}
			if c.bare {
				args = append(args, "--bare")
			}
			git(t, "", append(args, dir)...)
			if c.config != "" {
				git(t, dir, "config", "core.logAllRefUpdates", c.config)
			}
			r, err := Discover(dir)
			require.NoError(t, err)
			w := r.NewObjectWriter()
			h := writeCommit(t, w, plumbing.ZeroHash, "one")
			require.NoError(t, r.UpdateRef(recordsRef, h, plumbing.ZeroHash, testIdent, "create"))
			_, err = os.Stat(filepath.Join(r.CommonDir, "logs", recordsRef))
			require.Equal(t, c.want, err == nil, "reflog written: %v", err)
		})
	}
}
