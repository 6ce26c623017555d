package root

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/pkg/cmdutil"
)

// TestWriteToARefThatIsNoStore: only init creates a store. A write before
// init (with the user's own SSH signing configured, so it could sign), to a
// mistyped --ref, or to a branch that holds code is refused with
// NOT_INITIALIZED (exit 5) naming git records init and the ref it looked
// at, and no ref is created or moved; init then sets the store up as usual.
func TestWriteToARefThatIsNoStore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", "-b", "main", dir)
	key := filepath.Join(t.TempDir(), "id_ed25519")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", userEmail, "-f", key).CombinedOutput()
	require.NoError(t, err, "ssh-keygen: %s", out)
	git(t, dir, "config", "gpg.format", "ssh")
	git(t, dir, "config", "user.signingkey", key)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "code")
	mainTip := strings.TrimSpace(git(t, dir, "rev-parse", "main"))

	refs := func() string { return git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)") }
	before := refs()
	create := []string{"--json", "create", "--type", "concept", "--title", "t", "--category", "eng", "--body", "b", "--agent", "a"}

	e := requireError(t, rec(t, dir, create...), "NOT_INITIALIZED", cmdutil.ExitSetup)
	assert.Contains(t, e["message"], "refs/heads/records has no records store yet: run git records init")
	assert.Equal(t, before, refs(), "no ref was created")

	mustRec(t, dir, "init")
	before = refs()

	e = requireError(t, rec(t, dir, append([]string{"--ref", "recrods"}, create...)...), "NOT_INITIALIZED", cmdutil.ExitSetup)
	assert.Contains(t, e["message"], "refs/heads/recrods has no records store yet: run git records init")
	assert.Contains(t, e["message"], "the default is refs/heads/records")
	assert.Equal(t, "refs/heads/recrods", e["ref"])

	e = requireError(t, rec(t, dir, append([]string{"--ref", "main"}, create...)...), "NOT_INITIALIZED", cmdutil.ExitSetup)
	assert.Contains(t, e["message"], "refs/heads/main is not a records store")
	assert.Contains(t, e["message"], "git records init")
	assert.Equal(t, mainTip, strings.TrimSpace(git(t, dir, "rev-parse", "main")), "the code branch did not move")
	assert.Equal(t, before, refs(), "no ref was created or moved")

	id := createID(t, dir, create[2:]...)
	require.NotEmpty(t, id)
	mustRec(t, dir, "verify")
}
