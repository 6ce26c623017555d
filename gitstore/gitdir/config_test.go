package gitdir

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireSameAsGit checks Get and GetAll against git config --get-all, run
// in the repository under the same environment.
func requireSameAsGit(t *testing.T, r *Repo, keys ...string) {
	t.Helper()
	c, err := r.Config()
	require.NoError(t, err)
	for _, key := range keys {
		cmd := exec.Command("git", "config", "-z", "--get-all", key)
		cmd.Dir = r.WorkTree
		out, err := cmd.Output()
		if err != nil { // exit 1: not set
			_, ok := c.Get(key)
			assert.False(t, ok, "%s: git has no value", key)
			continue
		}
		// NUL-terminated values; an implicit true prints as an empty one.
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		assert.Equal(t, want, c.GetAll(key), "GetAll(%q)", key)
		v, ok := c.Get(key)
		assert.True(t, ok, key)
		assert.Equal(t, want[len(want)-1], v, "Get(%q)", key)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestConfigPrecedence(t *testing.T) {
	r := newRepoT(t)
	home := os.Getenv("HOME")
	dir := t.TempDir()
	system := filepath.Join(dir, "system")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "0")
	t.Setenv("GIT_CONFIG_SYSTEM", system)
	layer := func(name string) string {
		return "[test]\n\tlevel = " + name + "\n\tmulti = " + name + "\n"
	}
	writeFile(t, system, layer("system"))
	writeFile(t, filepath.Join(home, ".config", "git", "config"), layer("xdg"))
	writeFile(t, filepath.Join(home, ".gitconfig"), layer("global"))
	git(t, r.WorkTree, "config", "test.level", "local")
	git(t, r.WorkTree, "config", "--add", "test.multi", "local")
	git(t, r.WorkTree, "config", "extensions.worktreeConfig", "true")
	git(t, r.WorkTree, "config", "--worktree", "test.level", "worktree")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "Test.Level")
	t.Setenv("GIT_CONFIG_VALUE_0", "count")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'test.level'='params' 'test.multi'='params'")

	keys := []string{"test.level", "test.multi", "TEST.LEVEL"}
	expect := func(level string) {
		t.Helper()
		requireSameAsGit(t, r, keys...)
		c, err := r.Config()
		require.NoError(t, err)
		v, _ := c.Get("test.level")
		assert.Equal(t, level, v)
	}
	expect("params")
	t.Setenv("GIT_CONFIG_PARAMETERS", "")
	expect("count")
	t.Setenv("GIT_CONFIG_COUNT", "0")
	expect("worktree")
	git(t, r.WorkTree, "config", "--unset", "extensions.worktreeConfig")
	expect("local") // config.worktree is read only with the extension
	git(t, r.WorkTree, "config", "--unset", "test.level")
	expect("global")
	require.NoError(t, os.Remove(filepath.Join(home, ".gitconfig")))
	expect("xdg")
	t.Setenv("XDG_CONFIG_HOME", dir) // no git/config there
	expect("system")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "true")
	expect("")

	// GIT_CONFIG_GLOBAL replaces both per-user files.
	writeFile(t, filepath.Join(home, ".gitconfig"), layer("global"))
	other := filepath.Join(dir, "other")
	writeFile(t, other, layer("GIT_CONFIG_GLOBAL"))
	t.Setenv("GIT_CONFIG_GLOBAL", other)
	expect("GIT_CONFIG_GLOBAL")
}

func TestConfigSyntaxAndCaseMatchGit(t *testing.T) {
	r := newRepoT(t)
	local := filepath.Join(r.CommonDir, "config")
	b, err := os.ReadFile(local)
	require.NoError(t, err)
	writeFile(t, local, string(b)+`
[Test]
	Plain = value
	spaced =   lots   of   space   
	quoted = "  keep  "
	inline = value ; comment
	hash = value # comment
	quotedhash = "a # not a comment"
	escapes = "tab\there \\ back \"q\""
	implicit
	empty =
	continued = first \
second
	MixedCase = x
	dash-name = d
[test "Sub.Section"]
	key = upper
[test "sub.section"]
	key = lower
[TEST]
	plain = again
`)
	requireSameAsGit(t, r,
		"test.plain", "TEST.PLAIN", "test.spaced", "test.quoted", "test.inline", "test.hash",
		"test.quotedhash", "test.escapes", "test.implicit", "test.empty", "test.continued",
		"test.mixedcase", "test.MIXEDCASE", "test.dash-name",
		"test.Sub.Section.key", "test.sub.section.key", "test.SUB.SECTION.key", "TEST.Sub.Section.KEY")

	c, err := r.Config()
	require.NoError(t, err)
	assert.Equal(t, []string{"value", "again"}, c.GetAll("test.plain"))
	v, _ := c.Get("test.Sub.Section.key")
	assert.Equal(t, "upper", v, "subsections are case-sensitive")
	v, ok := c.Get("test.implicit")
	assert.True(t, ok)
	assert.Equal(t, "", v)
	assert.True(t, c.Bool("test.implicit", false), "a name alone is true")
	assert.False(t, c.Bool("test.empty", true), "an empty value is false")
}

func TestConfigBoolSpellings(t *testing.T) {
	r := newRepoT(t)
	for _, v := range []string{"true", "TRUE", "yes", "On", "1", "-1", "42", "0x10", "1k",
		"false", "No", "off", "OFF", "0", "", "0k"} {
		git(t, r.WorkTree, "config", "test.flag", v)
		want := git(t, r.WorkTree, "config", "--type=bool", "--get", "test.flag") == "true"
		c, err := r.Config()
		require.NoError(t, err)
		assert.Equal(t, want, c.Bool("test.flag", !want), "%q", v)
	}
	// Values git refuses as booleans give the default.
	git(t, r.WorkTree, "config", "test.flag", "maybe")
	_, gitErr := runGit(r.WorkTree, "config", "--type=bool", "--get", "test.flag")
	assert.Error(t, gitErr)
	c, err := r.Config()
	require.NoError(t, err)
	assert.True(t, c.Bool("test.flag", true))
	assert.False(t, c.Bool("test.flag", false))
	assert.True(t, c.Bool("test.missing", true))
}

func TestConfigIncludes(t *testing.T) {
	r := newRepoT(t)
	home := os.Getenv("HOME")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = ~/inc/a.cfg\n")
	writeFile(t, filepath.Join(home, "inc", "a.cfg"), "[test]\n\tfromhome = a\n[include]\n\tpath = b.cfg\n")
	writeFile(t, filepath.Join(home, "inc", "b.cfg"), "[test]\n\tfromhome = b\n\tnested = yes\n")
	writeFile(t, filepath.Join(r.GitDir, "extra.cfg"), "[test]\n\torder = included\n\tbefore = included\n")
	writeFile(t, filepath.Join(r.GitDir, "cond.cfg"), "[test]\n\tconditional = yes\n")
	local := filepath.Join(r.CommonDir, "config")
	b, err := os.ReadFile(local)
	require.NoError(t, err)
	writeFile(t, local, string(b)+`[test]
	before = local
[include]
	path = extra.cfg
	path = missing.cfg
[test]
	order = after
[includeIf "gitdir:`+r.WorkTree+`/"]
	path = cond.cfg
`)
	requireSameAsGit(t, r, "test.fromhome", "test.nested", "test.order", "test.before", "include.path")
	c, err := r.Config()
	require.NoError(t, err)
	v, _ := c.Get("test.order")
	assert.Equal(t, "after", v, "a value after the include wins")
	v, _ = c.Get("test.before")
	assert.Equal(t, "included", v, "an included value wins over one before the include")

	// includeIf is followed as git follows it (more in TestConfigIncludeIfMatchesGit).
	assert.Equal(t, "yes", git(t, r.WorkTree, "config", "--get", "test.conditional"))
	v, _ = c.Get("test.conditional")
	assert.Equal(t, "yes", v)

	// Circular includes fail, in git and here.
	writeFile(t, filepath.Join(home, "inc", "b.cfg"), "[include]\n\tpath = a.cfg\n")
	_, err = r.Config()
	assert.ErrorContains(t, err, "include depth")
	_, gitErr := runGit(r.WorkTree, "config", "--get", "test.order")
	assert.ErrorContains(t, gitErr, "include depth")
}

// GIT_CONFIG_PARAMETERS exactly as git writes it for its children: git -c
// runs an alias that prints it.
func TestConfigParametersAsGitWritesThem(t *testing.T) {
	r := newRepoT(t)
	out := git(t, r.WorkTree,
		"-c", "alias.params=!printenv GIT_CONFIG_PARAMETERS",
		"-c", "a.b=c",
		"-c", `x.y="q r"`,
		"-c", "x.y=q r",
		"-c", "Sec.Sub.KeY=it's",
		"-c", "bang.x=hi! there",
		"-c", "weird.x=a=b",
		"-c", "q.empty=",
		"-c", "q.implicit",
		"params")
	require.Contains(t, out, `'\''`, "the quoting under test is there")
	t.Setenv("GIT_CONFIG_PARAMETERS", out)
	keys := []string{"a.b", "x.y", "sec.Sub.key", "sec.sub.key", "bang.x", "weird.x", "q.empty", "q.implicit", "alias.params"}
	requireSameAsGit(t, r, keys...)
	c, err := r.Config()
	require.NoError(t, err)
	assert.Equal(t, []string{`"q r"`, "q r"}, c.GetAll("x.y"))
	v, _ := c.Get("Sec.Sub.KEY")
	assert.Equal(t, "it's", v)
	assert.True(t, c.Bool("q.implicit", false))
	assert.False(t, c.Bool("q.empty", true))

	// The pre-2.31 form, one word per pair, still arrives from older gits.
	t.Setenv("GIT_CONFIG_PARAMETERS", `'a.b=old style' 'q.implicit' 'it.s=don'\''t'`)
	requireSameAsGit(t, r, "a.b", "q.implicit", "it.s")

	// What git refuses, we refuse.
	for _, bogus := range []string{`'a.b`, `a.b=c`, `'a.b'x`, `'a.b'='c`, `'nosection'='v'`} {
		t.Setenv("GIT_CONFIG_PARAMETERS", bogus)
		_, err := r.Config()
		assert.Error(t, err, bogus)
		_, gitErr := runGit(r.WorkTree, "config", "--get", "a.b")
		assert.Error(t, gitErr, "git refuses %s", bogus)
	}
}

func TestSetLocal(t *testing.T) {
	r := newRepoT(t)
	for key, value := range map[string]string{
		"records.ref":     "refs/heads/records",
		"records.flag":    "-looks like an option",
		"records.Sub.odd": "quotes \" and \\ and # and ; and\nnewline",
	} {
		require.NoError(t, r.SetLocal(key, value))
		c, err := r.Config()
		require.NoError(t, err)
		got, ok := c.Get(key)
		assert.True(t, ok)
		assert.Equal(t, value, got, key)
		requireSameAsGit(t, r, key)
	}
	err := r.SetLocal("nosection", "x")
	assert.ErrorIs(t, err, ErrRefused)
}

// The parser against git config --list on the syntax git accepts and
// rejects, including what go-git's decoder gets wrong.
func TestConfigParserMatchesGit(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	for _, src := range []string{
		"[a]\n\tk = first \\\nsecond\n",            // continuation: joined
		"[a]\n\tk = \"in quotes \\\ncontinued\"\n", // continuation inside quotes
		"[a]\n\tk = ends with backslash \\\\\n[b]\n\tk = x\n",
		"[a]\n\tk = multi\tinner  spaces\t\n", // unquoted tab becomes a space
		"[a]\n\tk = a\"b\"c\n",
		"[a.Sub]\n\tk = legacy\n", // deprecated [section.sub]
		"[a] k = same line\n",     // a variable after the header
		"[a \"s\\tb\\\\c\"]\n\tk = escaped subsection\n",
		"[a \"\"]\n\tk = empty subsection\n",
		"[a]\n# comment \\\n\tk = after comment\n", // no continuation in comments
		"[a]\n\tk = x ; c \\\n\tj = y\n",
		"[a]\n\tk = ;\n",
		"\xef\xbb\xbf[a]\r\n\tk = bom and crlf\r\n",
		"\n\n[a]\n  k\n  j=\n",
		"[a]\n\tk = \\n\\t\\b\\\\\\\"\n",
		"[a]\n\tk = \"unterminated\n", // rejected
		"[a]\n\tk = bad \\x escape\n", // rejected
		"[a]\n\tk_u = underscore\n",   // rejected
		"[a]\n\t1k = digit first\n",   // rejected
		"[a]\n\tk ; comment\n",        // rejected
		"[a \"unterminated]\n",        // rejected
		"[a\n",                        // rejected
		"k = before any section\n[a]\n",
		"[a\"s\"]\n\tk = v\n",
		"[a \"s\" ]\n\tk = v\n",
		"[a \"s\\\"q\"]\n\tk = v\n",
		"[]\n\tk = v\n",
		"[.a.]\n\tk = v\n",
		"[A.B-c]\n\tK-1 = v\n",
		"[a] # comment\n\tk = v\n",
		"[a]k=v\n[b];c\n",
		"[a]\n\tk = a\rb\n",
		"[a]\n\tk = \"\ta\tb \"\n",
		"[a]\n\tk = \"\"\n\tj = \"a\" \"b\"\n",
		"[a]\n\tk = x \\",
		"[a]\n\tk",
		"[a]\n\tk = x\\\n",
		"[a]\n\tk = \\\n\\\n  end\n",
		"[a]\n\tk = one;two#three\n",
		"[a]\n\tk\t=\tv\n",
		"[a]\n\tk = v\n  \t  \n\t; c\n\t# c\n",
		"[a]\n\t-k = v\n",
		"[a]\n\tk = \"a\\qb\"\n",
		"[a \"s\nt\"]\n",
		"[a \"s\\\nt\"]\n",
		"[a]\r\n\tk = \"crlf\r\ninside\"\r\n",
	} {
		requireParsedAsGit(t, dir, src)
	}
}

// requireParsedAsGit: src in a file, read by parseConfig and listed by git
// config --file --list, gives the same variables, or an error from both.
func requireParsedAsGit(t *testing.T, dir, src string) {
	t.Helper()
	path := filepath.Join(dir, "cfg")
	writeFile(t, path, src)
	want, gitErr := exec.Command("git", "config", "--file", path, "-z", "--list").Output()

	var got strings.Builder
	err := parseConfig([]byte(src), path, func(name, value string, implicit bool) error {
		got.WriteString(name)
		if !implicit {
			got.WriteString("\n" + value)
		}
		got.WriteByte(0)
		return nil
	})
	if gitErr != nil {
		assert.Error(t, err, "git rejects %q", src)
		return
	}
	if assert.NoError(t, err, "%q", src) {
		assert.Equal(t, string(want), got.String(), "%q", src)
	}
}

// Random config files are lines of headers, variables and comments, their
// values made of pieces near the corners of the syntax, some invalid.
var (
	configHeaders = []string{"[a]", "[B.c]", "[a \"S\"]", "[a \"x\\\"y\"]", "[a \"\"]", "[a", "[a \"s\"", "[a] k = v", "[a]#c"}
	configNames   = []string{"k", "Key-2", "k2", "-k", "k_"}
	configValues  = []string{"v", "x y", "\"", "\\\\", "\\\n", "\\t", "\\n", "\\b", "\\q", "#c", ";c", " ", "\t", "\r", "\"a b\""}
)

// TestConfigParserMatchesGitOnRandomFiles: random config files are read as
// git reads them; a few hundred, each one git process.
func TestConfigParserMatchesGitOnRandomFiles(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(from []string) string { return from[rng.IntN(len(from))] }
	accepted := 0
	for range 200 {
		var b strings.Builder
		b.WriteString("[s]\n")
		for range 1 + rng.IntN(5) {
			switch rng.IntN(4) {
			case 0:
				b.WriteString(pick(configHeaders))
			case 1:
				b.WriteString(pick([]string{"# c", "; c \\", "", "  "}))
			default:
				b.WriteString(pick([]string{"", "\t", "  "}) + pick(configNames))
				if rng.IntN(4) > 0 {
					b.WriteString(pick([]string{"=", " = ", "\t=\t"}))
					for range rng.IntN(5) {
						b.WriteString(pick(configValues))
					}
				}
			}
			b.WriteString(pick([]string{"\n", "\n", "\r\n", ""}))
		}
		src := b.String()
		requireParsedAsGit(t, dir, src)
		if parseConfig([]byte(src), "x", func(string, string, bool) error { return nil }) == nil {
			accepted++
		}
	}
	require.Greater(t, accepted, 50, "random files are often valid enough to compare values")
}
