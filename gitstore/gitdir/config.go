package gitdir

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// Config is git configuration as git would read it for one repository: every
// value of every source, in the order git reads them, so that the last value
// wins as it does for `git config --get`.
//
// Sources, lowest precedence first: system (/etc/gitconfig, or
// $GIT_CONFIG_SYSTEM; none with $GIT_CONFIG_NOSYSTEM), global
// ($GIT_CONFIG_GLOBAL alone, else $XDG_CONFIG_HOME/git/config or
// ~/.config/git/config, then ~/.gitconfig), local (<CommonDir>/config),
// worktree (<GitDir>/config.worktree, with extensions.worktreeConfig), and
// the command line: GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n,
// then $GIT_CONFIG_PARAMETERS, which is how `git -c` reaches hooks, aliases
// and other subprocesses. include.path is followed where it appears (relative
// to the including file, "~" expanded, missing files ignored, at most 10
// deep), and so is includeIf.<condition>.path when its condition holds, as
// git decides it (includeif.go): gitdir:, gitdir/i: and onbranch:, where a
// value such as user.email or user.signingkey often lives. hasconfig: is not
// followed.
//
// Keys are "section.name" or "section.subsection.name"; section and name
// are case-insensitive, the subsection case-sensitive, as in git.
type Config struct {
	entries []configEntry
	repo    *includeContext // what includeIf conditions test; nil: none holds
}

type configEntry struct {
	key      string // canonical: lower-case section and name
	value    string
	implicit bool   // "name" with no "=": true as a boolean, "" as a string
	origin   string // the file it was read from; cmdlineOrigin for git -c
}

// cmdlineOrigin marks command-line values, from which relative includes are
// an error in git.
const cmdlineOrigin = ""

const maxIncludeDepth = 10 // git stops at the same depth

// Config reads the configuration of every source git would read for r.
func (r *Repo) Config() (*Config, error) {
	c := &Config{repo: r.includeContext()}
	for _, path := range userConfigFiles() {
		if err := c.readFile(path, 0); err != nil {
			return nil, err
		}
	}
	localStart := len(c.entries)
	if err := c.readFile(filepath.Join(r.CommonDir, "config"), 0); err != nil {
		return nil, err
	}
	// git decides this from the repository's own config only.
	local := Config{entries: c.entries[localStart:]}
	if local.Bool("extensions.worktreeconfig", false) {
		if err := c.readFile(filepath.Join(r.GitDir, "config.worktree"), 0); err != nil {
			return nil, err
		}
	}
	if err := c.readCommandLine(); err != nil {
		return nil, err
	}
	return c, nil
}

// Get returns the last value of key, like `git config --get`. A key set
// with no "=" (an implicit true) reads as "".
func (c *Config) Get(key string) (string, bool) {
	if e := c.last(key); e != nil {
		return e.value, true
	}
	return "", false
}

// GetAll returns every value of key, in order.
func (c *Config) GetAll(key string) []string {
	key = canonicalKey(key)
	var out []string
	for _, e := range c.entries {
		if e.key == key {
			out = append(out, e.value)
		}
	}
	return out
}

// Bool reads key as git reads a boolean: an implicit value, true, yes, on
// or a non-zero integer is true; false, no, off, "" or 0 is false (words
// case-insensitive). def is returned when the key is missing and when the
// value is none of these (where git would die).
func (c *Config) Bool(key string, def bool) bool {
	e := c.last(key)
	if e == nil {
		return def
	}
	if e.implicit {
		return true
	}
	if b, ok := parseBool(e.value); ok {
		return b
	}
	return def
}

// Int reads key as git reads an integer (a k, m or g suffix scales it);
// def when the key is missing or not a number.
func (c *Config) Int(key string, def int64) int64 {
	e := c.last(key)
	if e == nil {
		return def
	}
	n, err := parseInt(e.value)
	if err != nil {
		return def
	}
	return n
}

func (c *Config) last(key string) *configEntry {
	key = canonicalKey(key)
	for i := len(c.entries) - 1; i >= 0; i-- {
		if c.entries[i].key == key {
			return &c.entries[i]
		}
	}
	return nil
}

// SetLocal writes key=value to the repository's local config with
// `git config --file`, which locks, rewrites and renames the file as git
// always does.
func (r *Repo) SetLocal(key, value string) error {
	return setInFile(filepath.Join(r.CommonDir, "config"), key, value)
}

// SetWorktree writes key=value to this worktree's config.worktree, which git
// reads only when extensions.worktreeConfig is on.
func (r *Repo) SetWorktree(key, value string) error {
	return setInFile(filepath.Join(r.GitDir, "config.worktree"), key, value)
}

// GitGet reads key as git itself does for this repository: every source,
// includeIf too (which Config does not follow), so a value the user set
// anywhere is seen before anything is written over it.
func (r *Repo) GitGet(key string) (string, bool) {
	run := r.Git(r.WorkTree, "config", "--get", "--", key)
	if run.Err != nil {
		return "", false
	}
	return strings.TrimRight(string(run.Stdout), "\n"), true
}

func setInFile(path, key, value string) error {
	run := execGit("", os.Environ(), "config", "--file", path, "--", key, value)
	if run.Err != nil {
		// git config exits 1 for an invalid key, 2 for one without a section.
		if c := run.ExitCode(); c == 1 || c == 2 {
			return &inputError{kind: ErrRefused, cause: run.Err,
				message: fmt.Sprintf("git config %s: %s: %v", key, run.Message(), run.Err)}
		}
		return fmt.Errorf("git config %s: %s: %w", key, run.Message(), run.Err)
	}
	return nil
}

// userConfigFiles are the system and global files, in git's order.
func userConfigFiles() []string {
	var files []string
	if b, ok := parseBool(os.Getenv("GIT_CONFIG_NOSYSTEM")); !ok || !b {
		if p, set := os.LookupEnv("GIT_CONFIG_SYSTEM"); set {
			files = append(files, p)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if p, set := os.LookupEnv("GIT_CONFIG_GLOBAL"); set {
		return append(files, p)
	}
	home := os.Getenv("HOME")
	if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	} else if home != "" {
		files = append(files, filepath.Join(home, ".config", "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// readConfigFile parses one file, includes followed; a missing file is an
// empty config.
func readConfigFile(path string) (*Config, error) {
	c := &Config{}
	return c, c.readFile(path, 0)
}

func (c *Config) readFile(path string, depth int) error {
	if path == "" {
		return nil
	}
	src, err := os.ReadFile(path)
	if notExist(err) {
		return nil // git skips missing files, included ones too
	}
	if err != nil {
		return fmt.Errorf("read git config: %w", err)
	}
	return c.parse(src, path, depth)
}

func (c *Config) parse(src []byte, origin string, depth int) error {
	return parseConfig(src, origin, func(name, value string, implicit bool) error {
		return c.add(name, value, implicit, origin, depth)
	})
}

// add appends one value and follows it when it is an include.
func (c *Config) add(key, value string, implicit bool, origin string, depth int) error {
	c.entries = append(c.entries, configEntry{key: key, value: value, implicit: implicit, origin: origin})
	condition, conditional := conditionOf(key)
	if key != "include.path" && !conditional {
		return nil
	}
	if implicit {
		return fmt.Errorf("bad git config in %s: %s needs a value", originName(origin), key)
	}
	if conditional {
		holds, err := c.repo.holds(condition, origin)
		if err != nil || !holds {
			return err
		}
	}
	path := expandHome(value)
	if !filepath.IsAbs(path) {
		if origin == cmdlineOrigin {
			return fmt.Errorf("relative config includes must come from files: include.path=%s", value)
		}
		path = filepath.Join(filepath.Dir(origin), path)
	}
	if depth+1 > maxIncludeDepth {
		return fmt.Errorf(
			"exceeded maximum include depth (%d) while including %s from %s; do you have circular includes?",
			maxIncludeDepth, path, originName(origin))
	}
	return c.readFile(path, depth+1)
}

func originName(origin string) string {
	if origin == cmdlineOrigin {
		return "the command line"
	}
	return origin
}

// readCommandLine reads what `git -c` passes to child processes: first
// GIT_CONFIG_COUNT/KEY_n/VALUE_n (git -c is applied after them), then
// GIT_CONFIG_PARAMETERS.
func (c *Config) readCommandLine() error {
	if n := os.Getenv("GIT_CONFIG_COUNT"); n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count < 0 {
			return fmt.Errorf("bogus count in GIT_CONFIG_COUNT: %q", n)
		}
		for i := range count {
			k, kok := os.LookupEnv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			v, vok := os.LookupEnv("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			if !kok || !vok || k == "" {
				return fmt.Errorf("missing config key or value %d in GIT_CONFIG_COUNT", i)
			}
			if err := c.addParameter(k, v, false); err != nil {
				return err
			}
		}
	}
	params, err := parseConfigParameters(os.Getenv("GIT_CONFIG_PARAMETERS"))
	if err != nil {
		return err
	}
	for _, p := range params {
		if err := c.addParameter(p.key, p.value, p.implicit); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) addParameter(key, value string, implicit bool) error {
	dot, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if dot <= 0 || last == len(key)-1 {
		return fmt.Errorf("invalid config key %q on the command line: it needs a section and a name", key)
	}
	return c.add(canonicalKey(key), value, implicit, cmdlineOrigin, 0)
}

type parameter struct {
	key, value string
	implicit   bool
}

// parseConfigParameters reads $GIT_CONFIG_PARAMETERS: space-separated
// words single-quoted as git quotes them for a shell (see sqDequoteStep).
// Since git 2.31 a pair is two words joined by "=", key and value, and a key
// with "=" and no value is an implicit true; older gits wrote one word
// "key=value", or "key" alone for an implicit true. git -c a.b=c -c x.y="q r"
// gives
//
//	'a.b'='c' 'x.y'='q r'
func parseConfigParameters(s string) ([]parameter, error) {
	bogus := fmt.Errorf("bogus format in GIT_CONFIG_PARAMETERS: %q", s)
	var out []parameter
	s = strings.TrimLeft(s, " \t\n\r")
	for s != "" {
		word, rest, ok := sqDequoteStep(s)
		if !ok {
			return nil, bogus
		}
		var p parameter
		switch {
		case rest == "" || isSpace(rest[0]): // old style 'key=value'
			key, value, hasValue := strings.Cut(word, "=")
			p = parameter{key: strings.TrimSpace(key), value: value, implicit: !hasValue}
		case rest[0] == '=': // new style 'key'='value'
			rest = rest[1:]
			p.key = word
			if rest == "" || isSpace(rest[0]) {
				p.implicit = true
			} else if p.value, rest, ok = sqDequoteStep(rest); !ok || (rest != "" && !isSpace(rest[0])) {
				return nil, bogus
			}
		default:
			return nil, bogus
		}
		out = append(out, p)
		s = strings.TrimLeft(rest, " \t\n\r")
	}
	return out, nil
}

// sqDequoteStep reads one single-quoted word from the start of s and
// returns it with the unread rest. A quote or "!" inside the word is
// written by closing the quote, a backslash, the character, and reopening,
// as git quotes words for a shell:
//
//	'it'\''s'  is  it's
func sqDequoteStep(s string) (word, rest string, ok bool) {
	if s == "" || s[0] != '\'' {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; ; {
		end := strings.IndexByte(s[i:], '\'')
		if end < 0 {
			return "", "", false // unterminated
		}
		b.WriteString(s[i : i+end])
		i += end + 1
		if len(s) >= i+3 && s[i] == '\\' && (s[i+1] == '\'' || s[i+1] == '!') && s[i+2] == '\'' {
			b.WriteByte(s[i+1])
			i += 3
			continue
		}
		return b.String(), s[i:], true
	}
}

// canonicalKey lower-cases the section and the name of "a.B.c", keeping the
// subsection ("B") as written: the form parseConfig gives.
func canonicalKey(key string) string {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first < 0 || first == last {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first+1]) + key[first+1:last] + strings.ToLower(key[last:])
}

// parseBool reads an explicit value as git-config(1) reads a boolean
// ("Values", boolean): true, yes, on, false, no, off and "", any case, or
// an integer, true when it is not 0.
func parseBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	n, err := parseInt(v)
	return n != 0, err == nil
}

// parseInt reads an integer as git-config(1) does ("Values", integer): a
// number in the base its prefix names (0x, 0), optionally scaled by a k,
// m or g suffix (1024, 1024², 1024³).
func parseInt(v string) (int64, error) {
	if v == "" {
		return 0, strconv.ErrSyntax
	}
	scale := int64(1)
	switch strings.ToLower(v[len(v)-1:]) {
	case "k":
		scale = 1 << 10
	case "m":
		scale = 1 << 20
	case "g":
		scale = 1 << 30
	}
	if scale != 1 {
		v = v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 0, 64)
	return n * scale, err
}

// expandHome expands "~/" and "~user/" at the start of a path, as git does
// for a pathname value (git-config(1), "Values", pathname).
func expandHome(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	home := homeOf(name)
	if home == "" {
		return p
	}
	return filepath.Join(home, rest)
}

// homeOf is the home directory "~name" names: $HOME for "", else the
// user's; "" when there is none.
func homeOf(name string) string {
	if name == "" {
		return os.Getenv("HOME")
	}
	if u, err := user.Lookup(name); err == nil {
		return u.HomeDir
	}
	return ""
}
