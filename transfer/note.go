package transfer

import (
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// A foreign note becomes a record whose fields are read from what its
// author wrote, each in the first place it is found:
//
//   - title: title, else the first level-1 heading (zk, Foam), else the
//     file name;
//   - type: type, when it names a record type; category: category, when
//     it is one, else the folders;
//   - tags: tags and tag, the source's taxonomies (Hugo, Jekyll), the
//     body's #tags and #nested/tags, and zk's :colon:tags: where zk reads
//     them;
//   - times: created_at from created, created_at or date; updated_at from
//     lastmod, modified, updated, updated_at or last_modified; expires_at
//     from expiryDate or expires;
//   - aliases: handles derived from the file name, the title and each of
//     aliases and alias (see handleOf);
//   - properties: the whole front matter, as written, for export.

var (
	createdKeys = []string{"created", "created_at", "date"}
	updatedKeys = []string{"lastmod", "modified", "updated", "updated_at", "last_modified"}
	expiresKeys = []string{"expirydate", "expires", "expires_at"}
)

// frontValue is the value of the first of keys the front matter holds,
// keys compared without case.
func frontValue(front map[string]any, keys ...string) (string, any, bool) {
	for _, want := range keys {
		for k, v := range front {
			if strings.EqualFold(k, want) {
				return k, v, true
			}
		}
	}
	return "", nil, false
}

// mapForeign maps a foreign note, read and scanned, to a candidate.
func mapForeign(u unit, scan wikilink.Scanned, kind sourceKind, opts ImportOptions, now time.Time, rep *Report) *candidate {
	stem := strings.TrimSuffix(path.Base(u.origin), path.Ext(u.origin))
	r := &kernel.Record{ID: derivedID(u.origin), Type: opts.Type, Body: u.body,
		Source:     &kernel.Source{Extension: "import", ExternalID: u.origin},
		Properties: kernel.NormalizeProperties(u.front)}
	c := &candidate{origin: u.origin, record: r, foreign: true}
	notice := func(msg string) { rep.Notices = append(rep.Notices, Notice{Origin: u.origin, Message: msg}) }

	if _, v, ok := frontValue(u.front, "title"); ok {
		r.Title = strings.TrimSpace(stringOf(v))
	}
	if r.Title == "" {
		r.Title = scan.Title
	}
	if r.Title == "" {
		r.Title = stem
	}
	if _, v, ok := frontValue(u.front, "type"); ok {
		if t := stringOf(v); t != "" {
			if _, known := kernel.LookupType(t); known {
				r.Type = t
			} else {
				notice("type " + quote(t) + " is not a record type: imported as " + opts.Type + " (--type), kept in its properties")
			}
		}
	}
	if _, v, ok := frontValue(u.front, "category"); ok {
		if cat := stringOf(v); kernel.ValidateCategory(cat) == nil {
			r.Category = cat
		}
	}
	if r.Category == "" {
		r.Category = folderCategory(opts.Category, path.Dir(u.origin))
	}

	var tags []string
	for _, key := range append([]string{"tags", "tag"}, kind.Taxonomies...) {
		if _, v, ok := frontValue(u.front, key); ok {
			tags = append(tags, stringsOf(v)...)
		}
	}
	tags = append(tags, scan.Tags...)
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t == "" || seen[strings.ToLower(t)] {
			continue
		}
		seen[strings.ToLower(t)] = true
		switch {
		case len(r.Tags) >= kernel.MaxTags:
			notice("tag " + quote(t) + " left out: a record holds at most " + strconv.Itoa(kernel.MaxTags) + " tags (it stays in the note's properties or body)")
		case len(t) > kernel.MaxTagLength || strings.ContainsAny(t, "\r\n\x00"):
			notice("tag " + quote(shorten(t, 60)) + " left out: a tag is one line of at most " + strconv.Itoa(kernel.MaxTagLength) + " bytes")
		default:
			r.Tags = append(r.Tags, t)
		}
	}

	readTime := func(keys []string) *kernel.Timestamp {
		k, v, ok := frontValue(u.front, keys...)
		if !ok {
			return nil
		}
		t, ok := timeOf(v)
		switch {
		case !ok:
			notice(k + " " + quote(shorten(stringOf(v), 60)) + " is not a date: kept in the note's properties only")
			return nil
		case t.After(now):
			notice(k + " " + t.String() + " is after the import: kept in the note's properties only")
			return nil
		}
		return &t
	}
	c.created, c.updated = readTime(createdKeys), readTime(updatedKeys)
	if _, v, ok := frontValue(u.front, expiresKeys...); ok {
		if t, ok := timeOf(v); ok {
			r.ExpiresAt = &t
		} else {
			notice("expiry " + quote(shorten(stringOf(v), 60)) + " is not a date: kept in the note's properties only")
		}
	}

	c.names = []string{stem, r.Title}
	c.handleSources = []string{stem, r.Title}
	c.aliasesAsWritten = aliasesAsWritten(u.front, kind)
	c.names = append(c.names, c.aliasesAsWritten...)
	return c
}

// aliasesAsWritten are the other names a note's front matter gives it
// (aliases, alias), as written; none where they are a site's old URLs
// (Hugo).
func aliasesAsWritten(front map[string]any, kind sourceKind) []string {
	if kind.URLAliases {
		return nil
	}
	var out []string
	for _, key := range []string{"aliases", "alias"} {
		if _, v, ok := frontValue(front, key); ok {
			for _, a := range stringsOf(v) {
				if a = strings.TrimSpace(a); a != "" {
					out = append(out, a)
				}
			}
		}
	}
	return out
}

// timeOf reads a front matter date: a YAML or TOML date or time, a string
// in one of the forms notes use (RFC 3339, a date, a date and time with
// or without seconds and zone), or a number of milliseconds (Dendron) or
// seconds since 1970.
func timeOf(v any) (kernel.Timestamp, bool) {
	switch x := v.(type) {
	case time.Time:
		return kernel.At(x), true
	case int, int64, float64, uint64:
		n, _ := strconv.ParseFloat(stringOf(x), 64)
		switch {
		case n >= 1e11 && n < 1e14: // milliseconds: 1973 to 5138
			return kernel.At(time.UnixMilli(int64(n))), true
		case n >= 1e8 && n < 1e11: // seconds: 1973 to 5138
			return kernel.At(time.Unix(int64(n), 0)), true
		}
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 -07:00",
			"2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", time.DateOnly} {
			if t, err := time.Parse(layout, s); err == nil {
				return kernel.At(t), true
			}
		}
	}
	return kernel.Timestamp{}, false
}

// handleOf is the alias an alias as written gives: itself when it is a
// handle already, else its path segments as slugs (Start here →
// start-here, Projects/Auth → projects/auth); "" when nothing is left.
func handleOf(written string) string {
	if kernel.ValidateAlias(written) == nil {
		return written
	}
	var segs []string
	for seg := range strings.SplitSeq(written, "/") {
		if s := slug(seg); s != "" {
			segs = append(segs, s)
		}
	}
	h := strings.Join(segs, "/")
	if kernel.ValidateAlias(h) != nil {
		return ""
	}
	return h
}

// shorten cuts s to at most n bytes, on a character boundary, for a
// notice quoting a value.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
