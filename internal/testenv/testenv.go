// Package testenv gives the end-to-end test packages one clean, isolated
// environment: the git-records binary built once, first on PATH (so `git
// records …` runs it), HOME in a temporary directory with a known identity,
// no system git config, and none of the variables that would point git or
// git-records somewhere else. It is for tests only.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// leaky are the variables from the developer's (or a hook's) environment
// that would change what git or git-records do.
var leaky = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_QUARANTINE_PATH",
	"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_RECORDS_AGENT", "GIT_RECORDS_BIN", "SSH_AUTH_SOCK", "GNUPGHOME",
	"PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_LOCAL_BRANCH", "PRE_COMMIT_REMOTE_BRANCH",
}

// Setup builds the CLI into tmp/bin and sets the process environment up
// under tmp. name and email go in $HOME/.gitconfig. buildFlags are extra
// `go build` flags (coverage, say). It returns the binary's path.
func Setup(tmp, name, email string, buildFlags ...string) (string, error) {
	bin := filepath.Join(tmp, "bin")
	binPath := filepath.Join(bin, "git-records")
	args := append(append([]string{"build", "-o", binPath}, buildFlags...), "github.com/git-records/git-records/cmd/git-records")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", err
	}
	gitconfig := fmt.Sprintf("[user]\n\tname = %s\n\temail = %s\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n", name, email)
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return "", err
	}
	for _, k := range leaky {
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_TERMINAL_PROMPT": "0",
		"LC_ALL":              "C",
		"TZ":                  "UTC",
		"PATH":                bin + string(os.PathListSeparator) + os.Getenv("PATH"),
	} {
		if err := os.Setenv(k, v); err != nil {
			return "", err
		}
	}
	if p, err := exec.LookPath("git-records"); err != nil || p != binPath {
		return "", fmt.Errorf("git-records on PATH is %q (%v), want %s", p, err, binPath)
	}
	return binPath, nil
}
