package gitstore

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"
)

// goGitCommit decodes raw with go-git's decoder, the reference ours follows.
func goGitCommit(raw []byte) (*object.Commit, error) {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.CommitObject)
	_, _ = o.Write(raw)
	c := &object.Commit{}
	return c, c.Decode(o)
}

func requireSameSignature(t *testing.T, want object.Signature, got Signature, what string) {
	t.Helper()
	require.Equal(t, want.Name, got.Name, what)
	require.Equal(t, want.Email, got.Email, what)
	require.True(t, want.When.Equal(got.When), "%s: %v / %v", what, want.When, got.When)
	// The zone too: log prints the date as written. go-git loses the sign
	// of a zone under an hour west ("-0030" reads as +00:30); git keeps it,
	// and we follow git there (TestDecodeKeepsTheSignOfAZoneUnderAnHour).
	wantWhen := want.When
	if _, off := wantWhen.Zone(); off > 0 && off < 3600 {
		if _, gotOff := got.When.Zone(); gotOff == -off {
			wantWhen = wantWhen.In(time.FixedZone("", -off))
		}
	}
	require.Equal(t, wantWhen.Format(time.RFC3339), got.When.Format(time.RFC3339), what)
	require.Equal(t, want.When.IsZero(), got.When.IsZero(), what)
}

// requireDecodesAsGoGit decodes raw with both and compares every field
// gitstore reads.
func requireDecodesAsGoGit(t *testing.T, raw []byte) {
	t.Helper()
	want, wantErr := goGitCommit(raw)
	h := plumbing.ComputeHash(plumbing.CommitObject, raw)
	got, err := decodeCommit(h, raw)
	if wantErr != nil {
		require.Error(t, err, "%q", raw)
		require.True(t, errors.Is(wantErr, object.ErrMalformedCommit), "%q: %v", raw, wantErr)
		require.ErrorIs(t, err, errMalformedCommit, "%q", raw)
		require.Equal(t, strings.TrimPrefix(wantErr.Error(), "malformed commit"), strings.TrimPrefix(err.Error(), "malformed commit"), "%q", raw)
		return
	}
	require.NoError(t, err, "%q", raw)
	require.Equal(t, h, got.Hash)
	require.Equal(t, want.TreeHash, got.TreeHash, "%q", raw)
	require.Equal(t, len(want.ParentHashes), len(got.ParentHashes), "%q", raw)
	for i := range want.ParentHashes {
		require.Equal(t, want.ParentHashes[i], got.ParentHashes[i], "%q", raw)
	}
	requireSameSignature(t, want.Author, got.Author, fmt.Sprintf("author of %q", raw))
	requireSameSignature(t, want.Committer, got.Committer, fmt.Sprintf("committer of %q", raw))
	require.Equal(t, want.PGPSignature, got.PGPSignature, "%q", raw)
	require.Equal(t, want.MergeTag, got.MergeTag, "%q", raw)
	require.Equal(t, string(want.Encoding), got.Encoding, "%q", raw)
	require.Equal(t, want.Message, got.Message, "%q", raw)
}

// commitCorpus is well-formed and hostile commit texts: duplicate and
// out-of-place headers, continuations after every kind of header, missing
// newlines, bad hashes, odd dates and zones.
func commitCorpus() []string {
	tree := "tree " + strings.Repeat("a", 40) + "\n"
	p1 := "parent " + strings.Repeat("b", 40) + "\n"
	p2 := "parent " + strings.Repeat("c", 40) + "\n"
	au := "author A U Thor <a@example.com> 1700000000 +0130\n"
	co := "committer C O Mitter <c@example.com> 1700000100 -0745\n"
	sig := "gpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----\n"
	return []string{
		"",
		"\n",
		"tree",
		"tree \n",
		"tree xyz\n",
		"parent " + strings.Repeat("b", 40) + "\n" + tree,
		tree[:len(tree)-1],
		tree,
		tree + "\n",
		tree + "\nmessage",
		tree + p1 + p2 + au + co + "\nsubject\n\nbody\n",
		tree + p1 + p2 + au + co + sig + "\nsigned\n",
		tree + p1 + au + co + sig + sig + "\ntwo signatures\n",
		tree + p1 + au + co + sig[:len(sig)-1],
		tree + p1 + au + co + "gpgsig one line\n\nmsg",
		tree + p1 + au + co + "gpgsig\n continued\n\nmsg",
		tree + p1 + au + co + "gpgsig-sha256 x\n y\n" + sig + "\nmsg",
		tree + "parent nothex\n" + au + co + "\n",
		tree + p1 + au + "parent " + strings.Repeat("d", 40) + "\n" + co + "\nlate parent\n",
		tree + p1 + au + co + p2 + "\nparent after committer\n",
		tree + p1 + co + au + "\nswapped\n",
		tree + p1 + co + "\nno author\n",
		tree + p1 + au + "\nno committer\n",
		tree + p1 + au + au + co + "\ntwo authors\n",
		tree + tree + p1 + au + co + "\ntwo trees\n",
		tree + p1 + au + co + tree + "\nlate tree\n",
		tree + p1 + au + co + "encoding ISO-8859-1\nencoding UTF-16\n\nmsg",
		tree + p1 + au + co + "encoding UTF-8\n\nmsg",
		tree + p1 + au + co + "mergetag object x\n type commit\n\n second\nmergetag again\n more\n\nmsg",
		tree + p1 + au + co + "mergetag object x\n" + sig + "\nmsg",
		tree + p1 + au + co + "x-extra value\n continued\n more\n" + sig + "\nmsg",
		tree + p1 + au + co + "x-novalue\n continued\ngpgsig a\n b\n\nmsg",
		tree + p1 + au + co + " leading continuation\ngpgsig a\n\nmsg",
		tree + " orphan continuation\n" + au + co + "\nmsg",
		tree + p1 + au + co + "gpgsig a\n b\nencoding X\n c\n\nmsg",
		tree + p1 + au + co + "gpgsig a\n\n b\n\nmsg",
		tree + p1 + au + co + "\n\n\nblank lines\n",
		tree + p1 + au + co + "\nno newline at end",
		tree + p1 + au + co,
		tree + p1 + au + co[:len(co)-1],
		tree + p1 + "author <> 0 +0000\ncommitter x <y> -5 -0000\n\nm",
		tree + "author no email 1700000000 +0000\ncommitter a <b> notanumber +0100\n\nm",
		tree + "author a <b>\ncommitter a <b> 1700000000\n\nm",
		tree + "author a <b> 1700000000 +01\ncommitter a <b> 1700000000 +01xx\n\nm",
		tree + "author a > b < c 1 +0000\ncommitter a <b> <c> 2 -1230\n\nm",
		tree + "author  spaced  name   <e@x>  1700000000  +0000\ncommitter a <b> 99999999999 +1400\n\nm",
		tree + "author a <b> 1700000000 -0030\ncommitter a <b> 1700000000 +9999\n\nm",
		tree + "author\ncommitter\n\nm",
		tree + "author \ncommitter \n\nm",
		tree + p1 + au + co + "gpgsig x\r\n y\r\n\r\nmsg\r\n",
		strings.ToUpper(tree) + au + co + "\nupper-case tree hash\n",
	}
}

// The decoder is go-git v5's, field for field, on well-formed and hostile
// commits: what verify judges (tree, parents, dates, message, signature
// header) must not change with the decoder.
func TestDecodeCommitAsGoGit(t *testing.T) {
	t.Parallel()
	corpus := commitCorpus()
	for _, raw := range corpus {
		requireDecodesAsGoGit(t, []byte(raw))
	}
	// Splices of the corpus: every cut of each text, and pairs of them.
	rng := rand.New(rand.NewSource(7))
	for _, raw := range corpus {
		for i := 0; i <= len(raw); i += 1 + len(raw)/40 {
			requireDecodesAsGoGit(t, []byte(raw[:i]))
		}
	}
	for range 2000 {
		a, b := corpus[rng.Intn(len(corpus))], corpus[rng.Intn(len(corpus))]
		raw := a[:rng.Intn(len(a)+1)] + b[rng.Intn(len(b)+1):]
		requireDecodesAsGoGit(t, []byte(raw))
	}
}

// A commit the write path makes is byte for byte what go-git encoded:
// the signed payload and the signed commit.
func TestEncodeCommitAsGoGit(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(11))
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("X", -8*3600), time.FixedZone("", -45*60)}
	msgs := []string{"", "subject", "subject\n", "create(concept): T\n\nbody\n\nRecords-Op: create\n", "no\nnewline"}
	sigs := []string{"", "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n", "one line", "trailing\n\n"}
	hash := func() plumbing.Hash {
		var h plumbing.Hash
		rng.Read(h[:])
		return h
	}
	for i := range 200 {
		when := time.Unix(rng.Int63n(4e9)-1e9, 0).In(zones[rng.Intn(len(zones))])
		who := Signature{Name: fmt.Sprintf("Name %d", i), Email: fmt.Sprintf("n%d@example.com", i), When: when}
		c := &Commit{TreeHash: hash(), Author: who, Committer: who, Message: msgs[rng.Intn(len(msgs))], PGPSignature: sigs[rng.Intn(len(sigs))]}
		for range rng.Intn(3) {
			c.ParentHashes = append(c.ParentHashes, hash())
		}
		gw := object.Signature{Name: who.Name, Email: who.Email, When: who.When}
		g := &object.Commit{TreeHash: c.TreeHash, ParentHashes: c.ParentHashes, Author: gw, Committer: gw, Message: c.Message, PGPSignature: c.PGPSignature}
		unsigned, signed := &plumbing.MemoryObject{}, &plumbing.MemoryObject{}
		require.NoError(t, g.EncodeWithoutSignature(unsigned))
		require.NoError(t, g.Encode(signed))
		wantU, err := readAll(unsigned)
		require.NoError(t, err)
		wantS, err := readAll(signed)
		require.NoError(t, err)
		require.Equal(t, string(wantU), string(c.encode(false)))
		require.Equal(t, string(wantS), string(c.encode(true)))
		if c.PGPSignature != "" && !strings.HasSuffix(c.PGPSignature, "\n\n") {
			// And it reads back as written.
			back, err := decodeCommit(signed.Hash(), wantS)
			require.NoError(t, err)
			require.Equal(t, c.PGPSignature, strings.TrimSuffix(back.PGPSignature, "\n")+map[bool]string{true: "\n", false: ""}[strings.HasSuffix(c.PGPSignature, "\n")])
			require.Equal(t, c.TreeHash, back.TreeHash)
		}
	}
}

// FuzzDecodeCommitAsGoGit: `go test -fuzz FuzzDecodeCommitAsGoGit ./gitstore`.
func FuzzDecodeCommitAsGoGit(f *testing.F) {
	for _, raw := range commitCorpus() {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { requireDecodesAsGoGit(t, raw) })
}

// TestPlumbingObjectNotLinked: the binary does not link go-git's
// plumbing/object, nor what only it brings (OpenPGP, go-git's config with
// its URL regexps, gcfg), whose initialisation runs in every process.
func TestPlumbingObjectNotLinked(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "github.com/git-records/git-records/cmd/git-records")
	cmd.Env = append(os.Environ(), "HOME="+realHome)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/go-git/go-git/v5/plumbing")
	for _, p := range []string{
		"github.com/go-git/go-git/v5/plumbing/object",
		"github.com/go-git/go-git/v5/config",
		"github.com/go-git/go-git/v5/internal/url",
		"github.com/go-git/gcfg",
		"github.com/ProtonMail/go-crypto/openpgp",
	} {
		require.NotContains(t, deps, p)
	}
}

// TestIdentCleanedAsGit: the identity a commit is written with is the one
// git would write (git var GIT_COMMITTER_IDENT, same environment), so that
// git fsck accepts the commit and git and our decoder read the same name
// and email back: a user.name with "<...>" in it, or a newline in
// GIT_COMMITTER_NAME, once wrote author lines git split elsewhere, or a
// header of the caller's choosing.
func TestIdentCleanedAsGit(t *testing.T) {
	for _, id := range []struct{ name, email string }{
		{"Ann <ann@example.com>", "ann@work.example"},
		{"Bob\nparent 0000000000000000000000000000000000000000", " <bob@example.com>;"},
		{"'Cy \"C\" O'Neil',", "cy>@ex<ample.com"},
	} {
		t.Setenv("GIT_COMMITTER_NAME", id.name)
		t.Setenv("GIT_COMMITTER_EMAIL", id.email)
		s := newTestStore(t)
		dir := gitDir(s)
		gitIdent := git(t, dir, "var", "GIT_COMMITTER_IDENT")
		wantName, rest, _ := strings.Cut(gitIdent, " <")
		wantEmail, _, _ := strings.Cut(rest, "> ")
		name, email := s.Ident()
		require.Equal(t, wantName, name, "name as git cleans it")
		require.Equal(t, wantEmail, email, "email as git cleans it")

		git(t, dir, "fsck", "--strict", "--no-dangling")
		tip := strings.TrimSpace(git(t, dir, "rev-parse", s.Ref()))
		c, err := s.Commit(plumbing.NewHash(tip))
		require.NoError(t, err)
		require.Equal(t, wantName+"\x00"+wantEmail+"\x00"+wantName+"\x00"+wantEmail,
			strings.TrimSpace(git(t, dir, "log", "-1", "--format=%cn%x00%ce%x00%an%x00%ae", s.Ref())))
		require.Equal(t, []string{wantName, wantEmail, wantName, wantEmail},
			[]string{c.Committer.Name, c.Committer.Email, c.Author.Name, c.Author.Email})
		raw, err := s.RawCommit(c.Hash)
		require.NoError(t, err)
		require.Equal(t, string(raw), string(c.encode(true)), "the commit re-encodes byte for byte")
	}
}

// A zone under an hour west keeps its sign, as git prints it: go-git reads
// "-0030" as +00:30.
func TestDecodeKeepsTheSignOfAZoneUnderAnHour(t *testing.T) {
	t.Parallel()
	for tz, want := range map[string]int{"-0030": -1800, "+0030": 1800, "-0000": 0, "-0745": -(7*3600 + 45*60), "+0130": 5400} {
		raw := []byte("tree " + plumbing.ZeroHash.String() + "\nauthor A <a@x> 1700000000 " + tz + "\ncommitter A <a@x> 1700000000 " + tz + "\n\nm\n")
		c, err := decodeCommit(plumbing.ComputeHash(plumbing.CommitObject, raw), raw)
		require.NoError(t, err)
		_, off := c.Author.When.Zone()
		require.Equal(t, want, off, tz)
		require.Equal(t, int64(1700000000), c.Committer.When.Unix(), tz)
	}
}
