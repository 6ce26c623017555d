package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// seedVersion names the seeding recipe: a stored fixture of another
// version is seeded again.
const seedVersion = 3

// batchSize records go in one seeding commit (a batch is one commit).
const batchSize = 1000

// hubID is the record every tenth seeded record links to: the backlinks
// benchmark reads its inbound links.
const hubID = "hub"

func TestMain(m *testing.M) {
	// Only the stores' own configuration counts: a developer's global
	// settings (signing, hooks, gc) must not change what is measured.
	// The global file is an empty one of the run's own, not /dev/null: a
	// git that writes its global configuration renames a lock file over
	// it, which as root turns /dev/null into a regular file for the whole
	// machine.
	home, err := os.MkdirTemp("", "bench-gitconfig-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	global := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CONFIG_GLOBAL", global)
	os.Unsetenv("GIT_RECORDS_AGENT")
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// sizes are the store sizes measured; BENCH_SIZES=1000 narrows them.
func sizes() []int {
	if s := os.Getenv("BENCH_SIZES"); s != "" {
		var out []int
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err == nil && n > 0 {
				out = append(out, n)
			}
		}
		return out
	}
	return []int{1000, 10000}
}

// sizeLabel names a size in metric units: "1k", "10k".
func sizeLabel(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// rec is a seeded record the benchmarks address.
type rec struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// manifest describes a seeded store; it is saved next to it for reuse.
type manifest struct {
	Version int    `json:"version"`
	N       int    `json:"n"`
	Tip     string `json:"tip"`
	Records []rec  `json:"records"`
}

// fixture is one seeded store, packed (as after a clone) or loose (as
// written, before any gc).
type fixture struct {
	manifest
	label string // size and layout in metric names: "@10k", "@10k-loose"
	dir   string // repository root
	key   string // the store's ssh signing key (init --generate-key)
	cache []byte // the index cache at the seeded tip, as this build writes it
	// restored is the base file restoreIndex last wrote, as it left it.
	restored os.FileInfo
}

// path is where record r lives on the branch.
func (r rec) path() string { return gitstore.RecordPath(r.Type, r.ID) }

// generated are the seeded records with random ids (not the hub), whose
// 8-character prefixes are unique.
func (f *fixture) generated() []rec { return f.Records[1:] }

var (
	fixturesMu sync.Mutex
	fixtures   = map[string]*fixture{}
	pruned     = map[string]bool{}
)

// store returns the seeded store of n records in the given layout
// ("packed" or "loose"), seeding both layouts on first use, and resets it to
// its seeded state: branch at the seeded tip, index cache as seeded.
func store(b *testing.B, n int, layout string) *fixture {
	b.Helper()
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	name := fmt.Sprintf("store-%d-%s", n, layout)
	f := fixtures[name]
	if f == nil {
		bin(b) // seeding runs it
		if err := ensureSeeded(n); err != nil {
			b.Fatal(err)
		}
		var err error
		if f, err = loadFixture(n, name); err != nil {
			b.Fatal(err)
		}
		f.label = "@" + sizeLabel(n)
		if layout != "packed" {
			f.label += "-" + layout
		}
		fixtures[name] = f
	}
	if err := f.reset(!pruned[name]); err != nil {
		b.Fatal(err)
	}
	pruned[name] = true
	return f
}

// refreshCache makes f.cache the index cache this build of gitstore writes
// at the seeded tip: the stored copy when it still loads, else a rebuild
// (the cache format may have changed since the store was seeded).
func (f *fixture) refreshCache(stored string) error {
	data, err := os.ReadFile(stored)
	if err != nil {
		return err
	}
	f.cache = data
	if err := f.restoreIndex(); err != nil {
		return err
	}
	s, err := gitstore.Open(f.dir, gitstore.Options{})
	if err != nil {
		return err
	}
	defer closeStore(s)
	v, err := s.View()
	if err != nil {
		return err
	}
	if v.Tip().String() != f.Tip {
		return fmt.Errorf("%s is at %s, not at the seeded tip %s", f.dir, v.Tip(), f.Tip)
	}
	// One base at the tip, no delta: the file restoreIndex puts back.
	if _, err := s.Reindex(""); err != nil {
		return err
	}
	if f.cache, err = os.ReadFile(filepath.Join(f.dir, ".git", "records", "index", "heads%2Frecords.idx")); err != nil {
		return err
	}
	if !bytes.Equal(f.cache, data) {
		return os.WriteFile(stored, f.cache, 0o644)
	}
	return nil
}

func benchDir() string {
	if d := os.Getenv("BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(), ".bench")
}

func repoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// bin is the git-records binary under test: $GIT_RECORDS_BIN, else
// bin/git-records (make bench builds it), else one built here. Its mcp
// runs the git-records-server next to it.
func bin(b *testing.B) string {
	binOnce.Do(func() {
		binPath = os.Getenv("GIT_RECORDS_BIN")
		if binPath == "" {
			binPath = filepath.Join(repoRoot(), "bin", "git-records")
		}
		if _, err := os.Stat(binPath); err == nil {
			return
		}
		binPath = filepath.Join(benchDir(), "bin", "git-records")
		// git-records-server too: mcp execs the one next to git-records.
		binErr = goBuild(filepath.Dir(binPath)+string(filepath.Separator), "./cmd/git-records", "./cmd/git-records-server")
	})
	if binErr != nil {
		b.Fatal(binErr)
	}
	return binPath
}

var (
	helloOnce sync.Once
	helloPath string
	helloErr  error
)

// goHello builds bench/cmd/hello once, as bin builds ours.
func goHello(b *testing.B) string {
	helloOnce.Do(func() {
		helloPath = filepath.Join(benchDir(), "bin", "hello")
		helloErr = goBuild(helloPath, "./bench/cmd/hello")
	})
	if helloErr != nil {
		b.Fatal(helloErr)
	}
	return helloPath
}

// goBuild builds pkgs of this module to out as make build does: static,
// without cgo's start-up.
func goBuild(out string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-o", out}, pkgs...)...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", strings.Join(pkgs, " "), err, msg)
	}
	return nil
}

// run executes a command in dir and returns its trimmed stdout.
func run(dir string, stdin []byte, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

func mustRun(b *testing.B, dir string, stdin []byte, env []string, name string, args ...string) string {
	b.Helper()
	out, err := run(dir, stdin, env, name, args...)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func loadFixture(n int, name string) (*fixture, error) {
	data, err := os.ReadFile(filepath.Join(benchDir(), fmt.Sprintf("store-%d.json", n)))
	if err != nil {
		return nil, err
	}
	f := &fixture{dir: filepath.Join(benchDir(), name)}
	if err := json.Unmarshal(data, &f.manifest); err != nil {
		return nil, err
	}
	f.key = filepath.Join(f.dir, ".git", "records", "signing_key")
	// The packed store is a copy of the loose one: point its configuration
	// at its own key and allowed signers, not at the original's.
	for _, kv := range [][2]string{{"records.signingKey", f.key},
		{"gpg.ssh.allowedSignersFile", filepath.Join(f.dir, ".git", "records", "allowed_signers")}} {
		if _, err := run(f.dir, nil, nil, "git", "config", kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	if _, err := run(f.dir, nil, nil, "git", "update-ref", "refs/heads/records", f.Tip); err != nil {
		return nil, err
	}
	return f, f.refreshCache(filepath.Join(benchDir(), fmt.Sprintf("%s.index", name)))
}

// indexFiles are the store's index cache files (one per ref).
func (f *fixture) indexFiles() []string {
	m, _ := filepath.Glob(filepath.Join(f.dir, ".git", "records", "index", "*.idx*"))
	return m
}

// reset puts the branch back on the seeded tip and the index cache back to
// the seeded one, so that every benchmark sees a store of exactly n records
// whatever ran before. With gc it also drops the objects earlier write
// benchmarks left unreachable.
func (f *fixture) reset(gc bool) error {
	if _, err := run(f.dir, nil, nil, "git", "update-ref", "refs/heads/records", f.Tip); err != nil {
		return err
	}
	if err := f.restoreIndex(); err != nil {
		return err
	}
	if gc {
		if _, err := run(f.dir, nil, nil, "git", "reflog", "expire", "--expire=now", "--all"); err != nil {
			return err
		}
		if _, err := run(f.dir, nil, nil, "git", "prune", "--expire=now"); err != nil {
			return err
		}
	}
	return nil
}

// restoreIndex puts the seeded index cache back (it reflects f.Tip).
func (f *fixture) restoreIndex() error {
	dir := filepath.Join(f.dir, ".git", "records", "index")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// In pieces, as gitstore writes it: a file put in the page cache by
	// one write is kept as large folios, and every read that maps it would
	// then count megabytes of them in its resident set.
	out, err := os.Create(filepath.Join(dir, "heads%2Frecords.idx"))
	if err != nil {
		return err
	}
	for rest := f.cache; len(rest) > 0; {
		n := min(len(rest), 64<<10)
		if _, err := out.Write(rest[:n]); err != nil {
			out.Close()
			return err
		}
		rest = rest[n:]
	}
	f.restored = nil
	if err := out.Close(); err != nil {
		return err
	}
	f.restored, _ = os.Stat(out.Name())
	return nil
}

// resetDelta puts the index back at the seeded tip as restoreIndex does,
// but when the base file is still the one restoreIndex wrote (the same
// file, size and time: an incremental update writes only the delta beside
// it) it removes the delta alone. Rewriting the base before each timed
// update ran 80 MB through the page cache and the CPU's caches at 100,000
// records (1 MB at 1,000) just before it: in-process, 2.26 ms of CPU
// against 1.60 ms with the delta alone removed at 100k, 1.59 against
// 1.62 ms at 1k (load 15), a cost that grew with the store and was not
// the update's.
func (f *fixture) resetDelta() error {
	dir := filepath.Join(f.dir, ".git", "records", "index")
	base := filepath.Join(dir, "heads%2Frecords.idx")
	if fi, err := os.Stat(base); err != nil || f.restored == nil || !os.SameFile(fi, f.restored) ||
		fi.Size() != f.restored.Size() || !fi.ModTime().Equal(f.restored.ModTime()) {
		return f.restoreIndex()
	}
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return err
	}
	for _, name := range names {
		if name != base {
			if err := os.Remove(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// ensureSeeded seeds the stores of n records unless a stored seed of this
// version is there.
func ensureSeeded(n int) error {
	mf := filepath.Join(benchDir(), fmt.Sprintf("store-%d.json", n))
	if data, err := os.ReadFile(mf); err == nil {
		var m manifest
		if json.Unmarshal(data, &m) == nil && m.Version == seedVersion && m.N == n {
			return nil
		}
	}
	fmt.Fprintf(os.Stderr, "bench: seeding a store of %d records under %s (once)\n", n, benchDir())
	return seed(n)
}

// seed builds .bench/store-<n>-loose with Store.Mutate, batchSize records a
// commit, then copies it to store-<n>-packed and runs git gc there.
func seed(n int) error {
	base := benchDir()
	loose := filepath.Join(base, fmt.Sprintf("store-%d-loose", n))
	packed := filepath.Join(base, fmt.Sprintf("store-%d-packed", n))
	for _, d := range []string{loose, packed} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(loose, 0o755); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Bench Seeder"},
		{"config", "user.email", "bench@example.com"},
		{"config", "gc.auto", "0"}, // nothing packs behind the benchmarks' back
	} {
		if _, err := run(loose, nil, nil, "git", args...); err != nil {
			return err
		}
	}
	if _, err := run(loose, nil, nil, binPath, "init", "--generate-key"); err != nil {
		return err
	}
	s, err := gitstore.Open(loose, gitstore.Options{})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0x20d4))
	var recs []rec
	if n > fastSeedAbove {
		if recs, err = fastSeed(s, loose, n, rng); err != nil {
			return err
		}
	}
	for start := len(recs); start < n; start += batchSize {
		end := min(start+batchSize, n)
		var batch []rec
		_, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			batch = batch[:0]
			m := &kernel.Mutation{Op: kernel.OpCreate, Type: "concept",
				Title:   fmt.Sprintf("seed records %d-%d", start+1, end),
				Message: "Benchmark fixture: one batch of records, one commit.",
				Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpCreate)},
					{Key: kernel.TrailerAgent, Value: "bench-seed"}, {Key: kernel.TrailerFormat, Value: kernel.FormatVersion}}}
			for i := start; i < end; i++ {
				in := seedInput(rng, i, recs, batch)
				cm, err := kernel.Create(v, in, env)
				if err != nil {
					return nil, fmt.Errorf("seed record %d: %w", i, err)
				}
				r := cm.Writes[0]
				m.Writes = append(m.Writes, r)
				m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerID, Value: r.ID})
				batch = append(batch, rec{ID: r.ID, Type: r.Type})
			}
			return m, nil
		})
		if err != nil {
			return err
		}
		recs = append(recs, batch...)
		fmt.Fprintf(os.Stderr, "bench:   %d/%d\n", len(recs), n)
	}
	closeStore(s)
	// Bring the index cache to the tip (the seeding commits already did,
	// but make sure) and keep a copy of it to reset to.
	s, err = gitstore.Open(loose, gitstore.Options{})
	if err != nil {
		return err
	}
	v, err := s.View()
	if err != nil {
		return err
	}
	if _, err := s.Reindex(""); err != nil {
		return err
	}
	tip := v.Tip().String()
	closeStore(s)
	caches, _ := filepath.Glob(filepath.Join(loose, ".git", "records", "index", "*.idx*"))
	if len(caches) < 1 || filepath.Base(caches[0]) != "heads%2Frecords.idx" {
		return fmt.Errorf("expected one index cache for refs/heads/records, found %v", caches)
	}
	data, err := os.ReadFile(caches[0])
	if err != nil {
		return err
	}
	for _, layout := range []string{"loose", "packed"} {
		if err := os.WriteFile(filepath.Join(base, fmt.Sprintf("store-%d-%s.index", n, layout)), data, 0o644); err != nil {
			return err
		}
	}
	if _, err := run(base, nil, nil, "cp", "-a", loose, packed); err != nil {
		return err
	}
	// As in a real clone: everything in one pack.
	if _, err := run(packed, nil, nil, "git", "gc", "--quiet", "--prune=now"); err != nil {
		return err
	}
	m := manifest{Version: seedVersion, N: n, Tip: tip, Records: recs}
	data, err = json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(base, fmt.Sprintf("store-%d.json", n)), data, 0o644)
}

// fastSeedAbove is the size above which the seed is written by one `git
// fast-import` (seconds at 100,000 records) instead of signed Store.Mutate
// batches (minutes): the records are the same, the batch commits are not
// signed. No benchmark reads the seed's signatures.
const fastSeedAbove = 10000

// fastSeed writes the n seed records as batch commits through git
// fast-import on top of the init commit and moves the branch there.
func fastSeed(s *gitstore.Store, dir string, n int, rng *rand.Rand) ([]rec, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	env := kernel.Env{Now: time.Now(), NewID: kernel.NewID}
	cmd := exec.Command("git", "fast-import", "--quiet", "--force", "--depth=1")
	cmd.Dir = dir
	// glibc otherwise gives memory back and takes it again around every
	// blob (thousands of brk calls a second, most of fast-import's time).
	cmd.Env = append(os.Environ(), "MALLOC_TOP_PAD_=268435456", "MALLOC_TRIM_THRESHOLD_=268435456")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	var recs []rec
	data := func(b []byte) { fmt.Fprintf(w, "data %d\n", len(b)); w.Write(b); w.WriteByte('\n') }
	for start := 0; start < n; start += batchSize {
		end := min(start+batchSize, n)
		// The batch's time: env.Now moves a millisecond per record, so
		// the commits' dates rise a second per batch and the tip is at
		// most a couple of minutes ahead of the seeding. (Adding start,
		// a record count, as seconds dated the 100k tip 27 hours ahead:
		// every merge or pull on it then failed verify's time rule.)
		fmt.Fprintf(w, "commit refs/heads/records\ncommitter Bench Seeder <bench@example.com> %d +0000\n", env.Now.Unix())
		data([]byte(fmt.Sprintf("create(concept): seed records %d-%d\n\nBenchmark fixture: one batch of records, one commit.\n", start+1, end)))
		if start == 0 {
			fmt.Fprintf(w, "from %s\n", v.Tip())
		}
		var batch []rec
		for i := start; i < end; i++ {
			env.Now = env.Now.Add(time.Millisecond) // distinct creation times, as in a real store
			in := seedInput(rng, i, recs, batch)
			// Create checks a frontmatter link's target against the view,
			// which holds none of the records fast-import is writing: the
			// link is added after (its target is an earlier record's id).
			links := in.Links
			in.Links = nil
			m, err := kernel.Create(v, in, env)
			if err != nil {
				return nil, fmt.Errorf("seed record %d: %w", i, err)
			}
			r := m.Writes[0]
			r.Links = links
			file, err := gitstore.EncodeRecord(r)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(w, "M 100644 inline %s\n", gitstore.RecordPath(r.Type, r.ID))
			data(file)
			batch = append(batch, rec{ID: r.ID, Type: r.Type})
		}
		recs = append(recs, batch...)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git fast-import: %v: %s", err, errb.String())
	}
	fmt.Fprintf(os.Stderr, "bench:   %d/%d (git fast-import)\n", len(recs), n)
	return recs, nil
}

func closeStore(s *gitstore.Store) {
	if c, ok := any(s).(interface{ Close() error }); ok {
		c.Close()
	}
}

var seedTypes = []string{"concept", "concept", "raw", "compiled", "review.finding"}

// seedInput is record i of the seed: a few paragraphs of Markdown with
// wikilinks to earlier records, every tenth one to the hub, and now and then
// a frontmatter link and an alias, so the graph looks like a real one.
func seedInput(rng *rand.Rand, i int, earlier, batch []rec) kernel.CreateInput {
	in := kernel.CreateInput{
		Type:       seedTypes[i%len(seedTypes)],
		Title:      fmt.Sprintf("Seed record %d: %s", i, words(rng, 5)),
		Category:   fmt.Sprintf("bench.area%d.topic%d", i%7, i%23),
		Tags:       []string{fmt.Sprintf("t%d", i%13), fmt.Sprintf("team-%d", i%5)},
		Provenance: kernel.Provenance{Agent: "bench-seed"},
	}
	if i == 0 {
		in.ID, in.Type, in.Title = hubID, "concept", "Hub: the record everything cites"
	}
	pick := func() string {
		all := len(earlier) + len(batch)
		if all == 0 {
			return hubID
		}
		k := rng.IntN(all)
		if k < len(earlier) {
			return earlier[k].ID
		}
		return batch[k-len(earlier)].ID
	}
	var body strings.Builder
	fmt.Fprintf(&body, "## Context\n\n%s. See [[%s]] and [[%s|the earlier note]].\n\n", words(rng, 40), pick(), pick())
	fmt.Fprintf(&body, "## Decision\n\n%s.\n\n- %s\n- %s\n", words(rng, 30), words(rng, 8), words(rng, 8))
	if i%10 == 5 {
		fmt.Fprintf(&body, "\nThis follows [[%s]].\n", hubID)
	}
	in.Body = body.String()
	if i%5 == 3 && len(earlier) > 0 {
		in.Links = []kernel.Link{{TargetID: earlier[rng.IntN(len(earlier))].ID, Kind: kernel.LinkSource}}
	}
	if i%50 == 7 {
		in.Aliases = []string{fmt.Sprintf("bench/topic-%d", i)}
	}
	return in
}

var vocabulary = strings.Fields(`token refresh policy rotate handler session cache index branch commit
review finding decision record graph link store signature reader writer latency budget release
migration schema service client server request retry timeout backoff queue worker owner incident`)

func words(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[rng.IntN(len(vocabulary))]
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:]
}
