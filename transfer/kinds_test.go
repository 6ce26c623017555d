package transfer_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/transfer"
)

// importedKind imports testdata/import/kinds/<kind> into a new store and
// returns the report and each record by the path of the note it came from.
func importedKind(t *testing.T, kind string) (*transfer.Report, map[string]*kernel.Record) {
	t.Helper()
	dir, rep := importWithFixedClockAndKey(t, filepath.Join("..", "testdata", "import", "kinds", kind))
	require.NotEmpty(t, rep.Commit)
	assert.Equal(t, strings.TrimSuffix(strings.TrimSuffix(kind, "-yaml"), "-toml"), rep.Kind, "the source's tool is told by its root")
	svc := svcOf(t, dir)
	byOrigin := map[string]*kernel.Record{}
	for _, c := range rep.Created {
		r, err := svc.Show(c.ID)
		require.NoError(t, err)
		byOrigin[c.Origin] = r
	}
	return rep, byOrigin
}

// linkTo is the rewritten form of a link to r shown as label.
func linkTo(r *kernel.Record, label string) string { return "[[" + r.ID + "|" + label + "]]" }

// written is what a record keeps of its links as the source wrote them.
func written(r *kernel.Record) map[string]string {
	out := map[string]string{}
	for _, w := range r.WrittenAs {
		out[w.Link] = w.Source
	}
	return out
}

func skipReasons(rep *transfer.Report) map[string]string {
	out := map[string]string{}
	for _, s := range rep.LeftOut() {
		out[s.Origin] = s.Reason + ": " + s.Message
	}
	return out
}

func unresolvedLinks(rep *transfer.Report) []string {
	var out []string
	for _, u := range rep.Unresolved {
		out = append(out, u.Origin+" "+u.Link)
	}
	return out
}

func TestImportObsidianVault(t *testing.T) {
	rep, r := importedKind(t, "obsidian")
	home, backlinks, spaced := r["Home.md"], r["Backlinks.md"], r["Note With Spaces.md"]
	image := r["attachments/Backlinks.png"]
	require.NotNil(t, image, "the embedded image is a record")
	assert.Equal(t, "raw", image.Type)

	// A dotted name is tried whole: the embed is the image, not the note.
	assert.Contains(t, home.Body, "The graph: ![["+image.ID+"|Backlinks.png]] and the note "+linkTo(backlinks, "Backlinks")+".")
	// A table stays a table: the label's pipe is escaped in a cell.
	assert.Contains(t, home.Body, "| backlinks | [["+backlinks.ID+`\|Backlinks]] |`)
	assert.Contains(t, home.Body, "| spaced | [["+spaced.ID+`\|a label]] |`)
	// Nothing inside code changes.
	assert.Contains(t, home.Body, "Inline `[[Not A Link]]` and a block:\n\n```\n[[Also Not A Link]]\n```\n")
	assert.Equal(t, map[string]string{
		"![[" + image.ID + "|Backlinks.png]]": "![[Backlinks.png]]",
		linkTo(backlinks, "Backlinks"):        "[[Backlinks]]",
		"[[" + backlinks.ID + `\|Backlinks]]`: "[[Backlinks]]",
		"[[" + spaced.ID + `\|a label]]`:      `[[Note With Spaces\|a label]]`,
	}, written(home), "each rewritten link as the source wrote it")

	// Title from the first heading; tags from front matter and the body;
	// the date is the record's; the front matter is kept whole.
	assert.Equal(t, "Home page", home.Title)
	assert.Equal(t, []string{"start", "project", "area/work"}, home.Tags)
	assert.Equal(t, "2024-01-02T00:00:00.000Z", home.CreatedAt.String())
	assert.Equal(t, kernel.Properties{"aliases": []any{"Start here", "Projects/Auth", "日本語"}, "tags": []any{"start"}, "cssclasses": "wide", "created": "2024-01-02"}, home.Properties)

	// Aliases as written stay in the properties; handles are derived, and
	// the one that gives none is reported.
	assert.Equal(t, []string{"home", "home-page", "projects/auth", "start-here"}, home.Aliases)
	var notices []string
	for _, n := range rep.Notices {
		notices = append(notices, n.Origin+": "+n.Message)
	}
	assert.Contains(t, strings.Join(notices, "\n"), `Home.md: alias "日本語" gives no handle`)
	// A link by an alias as written resolves.
	assert.Equal(t, "Named with spaces. See "+linkTo(home, "Start here")+".\n", spaced.Body)

	// Of two notes with one name, the nearest.
	assert.Equal(t, "Links to "+linkTo(r["Folder B/Same.md"], "Same")+", which is the one beside it, and "+linkTo(r["Folder A/Same.md"], "Folder A/Same")+".\n", r["Folder B/Linker.md"].Body)

	// Empty and comment-only front matter is empty front matter; a
	// duplicate key skips its note, and only it.
	assert.Equal(t, "Empty front matter, then a body.\n", r["Empty FM.md"].Body)
	assert.Equal(t, "Comment-only front matter.\n", r["Comment FM.md"].Body)
	assert.Nil(t, r["Empty FM.md"].Properties)
	assert.Equal(t, map[string]string{"Duplicate.md": `unreadable: its front matter does not parse: yaml: unmarshal errors: line 2: mapping key "title" already defined at line 1`}, skipReasons(rep))
	assert.Empty(t, rep.Unresolved)
}

func TestImportZkNotebook(t *testing.T) {
	rep, r := importedKind(t, "zk")
	first, second, third, mine := r["a1b2.md"], r["b3c4.md"], r["sub/c5d6.md"], r["My Note.md"]
	// Titles from the first heading; Markdown links by path, with or
	// without .md, relative, percent-escaped, with a heading.
	assert.Equal(t, "First note", first.Title)
	assert.Equal(t, "# First note\n\nLinks to "+linkTo(second, "the second")+", "+linkTo(third, "the third")+" and [["+mine.ID+"#Part two|an escaped one]].\n"+
		"A link in code stays: `[code](b3c4)`. An outside one stays too: [zk](https://github.com/zk-org/zk).\n\nTagged :colon:tags: and #hash.\n", first.Body)
	assert.Equal(t, "# Third note\n\nBack "+linkTo(first, "to the first")+".\n", third.Body)
	assert.Equal(t, "[the second](b3c4)", written(first)[linkTo(second, "the second")])
	assert.Equal(t, "[an escaped one](My%20Note.md#Part%20two)", written(first)["[["+mine.ID+"#Part two|an escaped one]]"])
	// zk's colon tags, as its notebook enables them, and hashtags.
	assert.Equal(t, []string{"colon", "tags", "hash"}, first.Tags)
	assert.Equal(t, "2023-03-04T10:20:00.000Z", second.CreatedAt.String(), "a date with minutes")
	assert.Equal(t, []string{"b3c4.md [missing](nowhere)"}, unresolvedLinks(rep))
	assert.Empty(t, rep.LeftOut())
}

func TestImportFoamWorkspace(t *testing.T) {
	rep, r := importedKind(t, "foam")
	index, started := r["index.md"], r["getting-started.md"]
	assert.Equal(t, "Foam Index", index.Title)
	assert.Equal(t, "Getting Started", started.Title)
	assert.Equal(t, "# Foam Index\n\nStart with [[getting-started]], then [[missing-note]].\n\n[getting-started]: getting-started.md \"Getting Started\"\n", index.Body,
		"a link by a name that is a handle of its note stays; the link reference definitions Foam writes stay as they are")
	assert.Contains(t, started.Aliases, "getting-started")
	assert.Equal(t, "Back to [[index]]; #foam tags work too.\n", started.Body[strings.Index(started.Body, "Back"):])
	assert.Contains(t, index.Aliases, "index")
	assert.Equal(t, []string{"guide", "foam"}, started.Tags)
	assert.Equal(t, []string{"index.md [[missing-note]]"}, unresolvedLinks(rep))
}

func TestImportDendronVault(t *testing.T) {
	rep, r := importedKind(t, "dendron")
	topic, lookup, stub, root := r["dendron.topic.md"], r["dendron.topic.lookup.md"], r["dendron.stub.md"], r["root.md"]
	require.NotNil(t, root)
	// A Dendron note's id is its data, not a claim to be a record of ours.
	assert.NotEqual(t, "8f2c1a9b3d", topic.ID)
	assert.Equal(t, "8f2c1a9b3d", topic.Properties["id"])
	assert.Equal(t, "Topic", topic.Title)
	// Dotted names whole; [[label|target]] the Dendron way round.
	assert.Equal(t, "See "+linkTo(lookup, "dendron.topic.lookup")+" and "+linkTo(lookup, "the lookup")+".\n", topic.Body)
	assert.Equal(t, "[[the lookup|dendron.topic.lookup]]", written(topic)[linkTo(lookup, "the lookup")])
	// Dendron's times are milliseconds.
	assert.Equal(t, "2022-01-01T00:00:00.000Z", topic.CreatedAt.String())
	assert.Equal(t, "2022-02-01T00:00:00.000Z", topic.UpdatedAt.String())
	// A stub is a record with an empty body.
	assert.Equal(t, "", stub.Body)
	// Another vault's note by its name; a link to nothing kept target
	// first, so the store does not read its label as the target.
	assert.Equal(t, "Back to "+linkTo(topic, "dendron.topic")+".\nAcross vaults: [[topic#intro]]; to nothing: [[nowhere.at.all|label]].\n", lookup.Body)
	assert.Equal(t, "[[topic|dendron://vault/dendron.topic#intro]]", written(lookup)["[[topic#intro]]"])
	assert.Equal(t, "[[label|nowhere.at.all]]", written(lookup)["[[nowhere.at.all|label]]"])
	assert.Equal(t, []string{"dendron.topic.lookup.md [[label|nowhere.at.all]]"}, unresolvedLinks(rep))
	assert.Empty(t, rep.LeftOut())
}

func TestImportHugoSiteWithYAML(t *testing.T) {
	rep, r := importedKind(t, "hugo-yaml")
	first, second, home := r["content/posts/first.md"], r["content/posts/second.md"], r["content/_index.md"]
	assert.Equal(t, "", home.Body, "a section page with no body is a record")
	assert.Equal(t, "Home", home.Title)
	assert.Equal(t, "First post", first.Title)
	assert.Equal(t, []string{"hugo", "yaml", "notes", "getting-started"}, first.Tags, "tags and the configured taxonomies")
	assert.Equal(t, "2023-05-01T10:00:00.000Z", first.CreatedAt.String())
	assert.Equal(t, "2023-06-01T06:30:00.000Z", first.UpdatedAt.String())
	assert.Equal(t, []any{"/old/first/"}, first.Properties["aliases"], "a Hugo page's aliases are old URLs: kept, not handles")
	assert.NotContains(t, first.Aliases, "old/first")
	assert.Equal(t, "2023-05-01T10:00:00Z", first.Properties["date"])
	assert.Equal(t, int64(10), first.Properties["weight"])
	assert.Equal(t, false, first.Properties["draft"])
	assert.Contains(t, first.Body, "Read "+linkTo(second, "the second")+" next, or `{{< ref \"second\" >}}` as Hugo writes it.")
	assert.Contains(t, first.Body, "```toml\n[[deployment.matchers]]\npattern = \"^.+\\\\.(js|css)$\"\n```\n", "TOML in a code block is untouched")
	assert.Equal(t, "Back to "+linkTo(first, "the first")+".\n"+
		"By its URL, as a site links it: [[first]] and "+linkTo(r["content/posts/_index.md"], "the posts")+", and [a placeholder](TODO).\n", second.Body,
		"a site's URL names the note whose path ends so, a folder's its _index; a Markdown link names a file, never a title")
	assert.Equal(t, []string{"content/posts/second.md [a placeholder](TODO)"}, unresolvedLinks(rep))
}

func TestImportHugoSiteWithTOML(t *testing.T) {
	rep, r := importedKind(t, "hugo-toml")
	install, configure, docs := r["content/docs/install.md"], r["content/docs/configure.md"], r["content/docs/_index.md"]
	assert.Equal(t, "Docs", docs.Title)
	assert.Equal(t, "", docs.Body)
	assert.Equal(t, []string{"install", "docs"}, install.Tags)
	assert.Equal(t, "2023-05-01T10:00:00.000Z", install.CreatedAt.String())
	require.NotNil(t, install.ExpiresAt)
	assert.Equal(t, "2030-01-01T00:00:00.000Z", install.ExpiresAt.String())
	assert.Equal(t, kernel.Properties{"icon": "download"}, install.Properties["params"])
	assert.Equal(t, "Configure it next: [["+configure.ID+"#options|options]].\n\n```toml\n[[deployment.matchers]]\ngzip = true\n```\n", install.Body)
	assert.Equal(t, "## Options\n\nSee "+linkTo(install, "Install")+" first.\n", configure.Body)
	assert.Empty(t, rep.Unresolved)
}

func TestImportJekyllSite(t *testing.T) {
	rep, r := importedKind(t, "jekyll")
	index, about, hello, comment := r["index.md"], r["about.md"], r["_posts/2020-01-01-hello.md"], r["comment.md"]
	assert.Equal(t, "Welcome", index.Title, "empty front matter: the heading")
	assert.Equal(t, "# Welcome\n\nRead "+linkTo(about, "about us")+" and the "+linkTo(hello, "first post")+".\n", index.Body)
	assert.Equal(t, "Hello, see [[about]].\n", hello.Body, "a label that is a handle of its target is the link")
	assert.Equal(t, map[string]string{"[[about]]": "[about](../about.md)"}, written(hello))
	assert.Contains(t, about.Aliases, "about")
	assert.Equal(t, []string{"intro", "blog", "news"}, hello.Tags)
	assert.Equal(t, "2020-01-01T10:00:00.000Z", hello.CreatedAt.String())
	assert.Equal(t, "A page whose front matter holds a comment.\n", comment.Body)
	assert.Equal(t, "page", about.Properties["layout"])
	assert.Empty(t, rep.Unresolved)
	assert.Empty(t, rep.LeftOut())
}

// Every note's body comes back as its source wrote it: the record's body
// with the links the import rewrote written back (SourceBody), byte for
// byte, in a vault of each kind.
func TestImportKeepsEveryBodyAsWritten(t *testing.T) {
	for _, kind := range []string{"obsidian", "zk", "foam", "dendron", "hugo-yaml", "hugo-toml", "jekyll"} {
		vault := filepath.Join("..", "testdata", "import", "kinds", kind)
		dir, rep := importWithFixedClockAndKey(t, vault)
		same, notes, differ := bodiesAsWritten(t, vault, dir, rep)
		assert.Empty(t, differ, kind)
		assert.Equal(t, notes, same, kind)
		assert.GreaterOrEqual(t, notes, 2, kind)
	}
}
