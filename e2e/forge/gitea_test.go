//go:build forge

package forge

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// giteaBuild runs scripts/gitea.sh, which builds Gitea once per machine
// and caches it, and returns the binary and its module directory (Gitea's
// static root). GITEA_BIN and GITEA_STATIC_ROOT, when both are set, name
// a Gitea of your own instead. It runs before the test environment is
// isolated: the build and its cache live under the user's real HOME.
func giteaBuild() (bin, staticRoot string, err error) {
	bin, staticRoot = os.Getenv("GITEA_BIN"), os.Getenv("GITEA_STATIC_ROOT")
	if bin != "" && staticRoot != "" {
		return bin, staticRoot, nil
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "gitea.sh"))
	if err != nil {
		return "", "", err
	}
	cmd := exec.Command(script)
	cmd.Stderr = os.Stderr // the build says what it does, once
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", script, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "GITEA_BIN":
			bin = v
		case "GITEA_STATIC_ROOT":
			staticRoot = v
		}
	}
	if bin == "" || staticRoot == "" {
		return "", "", fmt.Errorf("%s printed no GITEA_BIN and GITEA_STATIC_ROOT:\n%s", script, out)
	}
	return bin, staticRoot, nil
}

// gitea is a running Gitea: one process, one SQLite database, its
// repositories under repoRoot, all in a temporary work directory.
type gitea struct {
	bin      string
	work     string // GITEA_WORK_DIR
	config   string // its app.ini
	base     string // http://127.0.0.1:<port>
	repoRoot string // where it keeps repositories: <owner>/<name>.git
	logPath  string
	cmd      *exec.Cmd
	exited   chan error
}

// startGitea writes an app.ini for a Gitea on a free loopback port, with
// SQLite, the install already done (INSTALL_LOCK), no ssh, no mail and no
// outside requests, starts `gitea web` and waits until its API answers.
func startGitea(tmp, bin, staticRoot string) (*gitea, error) {
	work := filepath.Join(tmp, "gitea")
	g := &gitea{bin: bin, work: work, config: filepath.Join(work, "custom", "conf", "app.ini"),
		repoRoot: filepath.Join(work, "repositories"), logPath: filepath.Join(work, "gitea.log")}
	if err := os.MkdirAll(filepath.Dir(g.config), 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	g.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	ini := fmt.Sprintf(`APP_NAME = git-records forge tests
RUN_MODE = prod
WORK_PATH = %[1]s

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[2]d
ROOT_URL = %[3]s/
APP_DATA_PATH = %[1]s/data
STATIC_ROOT_PATH = %[4]s
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false

[database]
DB_TYPE = sqlite3
PATH = %[1]s/data/gitea.db

[repository]
ROOT = %[5]s

[security]
INSTALL_LOCK = true
SECRET_KEY = %[6]s

[service]
DISABLE_REGISTRATION = true

[mailer]
ENABLED = false

[session]
PROVIDER = memory

[cache]
ADAPTER = memory

[actions]
ENABLED = false

[cron.update_checker]
ENABLED = false

[log]
MODE = console
LEVEL = Warn
`, work, port, g.base, staticRoot, g.repoRoot, randomHex(16))
	if err := os.WriteFile(g.config, []byte(ini), 0o600); err != nil {
		return nil, err
	}
	logf, err := os.Create(g.logPath)
	if err != nil {
		return nil, err
	}
	g.cmd = exec.Command(bin, "web", "--config", g.config)
	g.cmd.Dir = work
	g.cmd.Env = g.env()
	g.cmd.Stdout, g.cmd.Stderr = logf, logf
	if err := g.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	g.exited = make(chan error, 1)
	go func() { g.exited <- g.cmd.Wait(); logf.Close() }()

	// A loaded machine takes a while to migrate a fresh database.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case err := <-g.exited:
			return nil, fmt.Errorf("gitea web exited before it answered (%v):\n%s", err, g.logTail())
		default:
		}
		resp, err := http.Get(g.base + "/api/v1/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return g, nil
			}
		}
		if time.Now().After(deadline) {
			g.stop()
			return nil, fmt.Errorf("gitea did not answer on %s within 3 minutes:\n%s", g.base, g.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// env is the environment Gitea runs in: the tests' own (PATH with
// git-records first, the isolated HOME), its work directory, and leave to
// run as root where the tests do (it refuses otherwise).
func (g *gitea) env() []string {
	env := append(os.Environ(), "GITEA_WORK_DIR="+g.work, "GITEA_CUSTOM="+filepath.Join(g.work, "custom"))
	if os.Geteuid() == 0 {
		env = append(env, "GITEA_I_AM_BEING_UNSAFE_RUNNING_AS_ROOT=true")
	}
	return env
}

func (g *gitea) stop() {
	if g.cmd == nil || g.cmd.Process == nil {
		return
	}
	g.cmd.Process.Signal(os.Interrupt)
	select {
	case <-g.exited:
	case <-time.After(20 * time.Second):
		g.cmd.Process.Kill()
		<-g.exited
	}
}

// logTail is the end of Gitea's log, for a failure message.
func (g *gitea) logTail() string {
	data, _ := os.ReadFile(g.logPath)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// adminCreate makes the site administrator with Gitea's own CLI (the API
// needs an administrator to make users), and a token for it.
func (g *gitea) adminCreate(name, email, password string) (string, error) {
	cmd := exec.Command(g.bin, "admin", "user", "create", "--config", g.config, "--username", name,
		"--email", email, "--password", password, "--admin", "--must-change-password=false")
	cmd.Dir, cmd.Env = g.work, g.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("gitea admin user create: %v\n%s", err, out)
	}
	return g.token(name, password)
}

// token makes an API token for a user, with its password.
func (g *gitea) token(name, password string) (string, error) {
	var tok struct {
		Token string `json:"sha1"`
	}
	body := map[string]any{"name": "forge-tests-" + randomHex(4), "scopes": []string{"all"}}
	basic := func(r *http.Request) { r.SetBasicAuth(name, password) }
	if err := g.call("POST", "/users/"+name+"/tokens", basic, body, http.StatusCreated, &tok); err != nil {
		return "", err
	}
	if tok.Token == "" {
		return "", fmt.Errorf("gitea gave %s an empty token", name)
	}
	return tok.Token, nil
}

// api calls Gitea's REST API (/api/v1) with a token, requires the status
// want and decodes the answer into out (nil: ignored).
func (g *gitea) api(t testing.TB, method, path, token string, body any, want int, out any) {
	t.Helper()
	require.NoError(t, g.call(method, path, tokenAuth(token), body, want, out))
}

func tokenAuth(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "token "+token) }
}

// call is one API request, authenticated by auth.
func (g *gitea) call(method, path string, auth func(*http.Request), body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, g.base+"/api/v1"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	auth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// user is a Gitea account the tests push as.
type user struct {
	name, email, token string
}

// auth authenticates an API call as u.
func (u user) auth() func(*http.Request) { return tokenAuth(u.token) }

// newUser makes an account through the admin API, and its token.
func (g *gitea) newUser(t testing.TB, admin user, name, email string) user {
	t.Helper()
	password := "pw-" + randomHex(12)
	g.api(t, "POST", "/admin/users", admin.token, map[string]any{"username": name, "email": email,
		"password": password, "must_change_password": false}, http.StatusCreated, nil)
	tok, err := g.token(name, password)
	require.NoError(t, err)
	return user{name: name, email: email, token: tok}
}

// newRepo makes an empty public repository owned by u, whose default
// branch is the records branch, and returns its directory on Gitea's disk.
func (g *gitea) newRepo(t testing.TB, u user, name string) string {
	t.Helper()
	g.api(t, "POST", "/user/repos", u.token, map[string]any{"name": name, "default_branch": "records"}, http.StatusCreated, nil)
	dir := filepath.Join(g.repoRoot, strings.ToLower(u.name), strings.ToLower(name)+".git")
	require.DirExists(t, dir, "Gitea keeps the repository at %s", dir)
	return dir
}

// cloneURL is the repository's HTTP URL, with u's token as its password
// (the zero user: anonymous, as a CI job reading a public repository).
func (g *gitea) cloneURL(u user, owner, name string) string {
	p, _ := url.Parse(g.base)
	if u.name != "" {
		p.User = url.UserPassword(u.name, u.token)
	}
	p.Path = "/" + owner + "/" + name + ".git"
	return p.String()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
