package kernel

import (
	"sort"
	"strconv"
	"strings"
)

// Format versions (kernel contract §2.1, §6, §7). The branch's format is
// .records/format; every commit carries it as Record-Format. A newer tool
// reads every older format; a store in a newer format is refused, with a
// code that says to upgrade. Fields are only ever added, with defaults (a
// reader of an older format leaves them unset); a rename or a changed
// meaning ships with a Migration from the format before, and `git records
// migrate` rewrites a store to the current format in one commit.

// Formats lists every format ever released, oldest first; the last is
// FormatVersion, the one this tool writes. Each has a fixture store in
// testdata/formats/v<N> that the tests read with this tool.
var Formats = []string{"1"}

// Migration rewrites records of format From into format To = From+1:
// Record changes one record in place and reports whether it did. It must
// be a pure function of the record, so verify can replay it.
type Migration struct {
	From, To int
	What     string // what changed, for the commit message
	Record   func(r *Record) bool
}

// Migrations are the migrations between released formats, in order. None
// yet: format 1 is the first.
var Migrations []Migration

// ParseFormat reads .records/format.
func ParseFormat(data []byte) (int, error) {
	s := strings.TrimSpace(string(data))
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, Errorf(CodeInvalidRecord, "%s holds %q, not a format version (a positive integer)", FormatPath, s)
	}
	return n, nil
}

// CurrentFormat is FormatVersion as a number.
func CurrentFormat() int {
	n, _ := strconv.Atoi(FormatVersion)
	return n
}

// CheckReadable refuses a store in a format newer than this tool reads
// (FORMAT_TOO_NEW: upgrade); every older format is read.
func CheckReadable(format int) error {
	if format > CurrentFormat() {
		return Errorf(CodeFormatTooNew, "this records store is in format %d and this git-records reads formats up to %d: upgrade git-records (go install github.com/git-records/git-records/cmd/git-records@latest)", format, CurrentFormat()).
			WithExtra("format", format).WithExtra("reads_up_to", CurrentFormat())
	}
	return nil
}

// CheckWritable refuses an op on a store in an older format than this
// tool writes (FORMAT_OUTDATED), except migrate, which brings it up.
func CheckWritable(format int, op Op) error {
	if err := CheckReadable(format); err != nil {
		return err
	}
	if format < CurrentFormat() && op != OpMigrate && op != OpMerge {
		return Errorf(CodeFormatOutdated, "this records store is in format %d and this git-records writes format %d: run git records migrate --agent <you> first (one signed commit), then retry", format, CurrentFormat()).
			WithExtra("format", format)
	}
	return nil
}

// CheckCommitFormat is the rule on a commit's Record-Format trailer: it
// names the format of the branch the commit leaves (its .records/format),
// which this tool must know. "" when it holds.
func CheckCommitFormat(trailer string, branchFormat int) string {
	n, err := strconv.Atoi(trailer)
	switch {
	case err != nil || strconv.Itoa(n) != trailer:
		return "Record-Format is " + strconv.Quote(trailer) + ", not a format version"
	case n > CurrentFormat():
		return "Record-Format is " + trailer + ", newer than the formats this git-records reads (up to " + FormatVersion + "): upgrade git-records"
	case n != branchFormat:
		return "Record-Format is " + trailer + " and the commit leaves the branch in format " + strconv.Itoa(branchFormat)
	}
	return ""
}

// OpMigrate rewrites a store to the current format.
const OpMigrate Op = "migrate"

// MigrateView is what a migration needs of a view: every record.
type MigrateView interface {
	View
	AllRecords() ([]*Record, error)
}

// Migrate decides the migration of a store in format from to the format
// the last of migrations reaches (CurrentFormat with the real registry):
// every record rewritten by each migration in turn, .records/format set,
// one commit. nil when the store is current. Its output is a pure function
// of the records (the mutation log entry is dated env.Now, which verify
// reads back from the entry), so verify replays it on the parent and
// accepts only the same bytes.
func Migrate(v View, from int, migrations []Migration, agent string, env Env) (*Mutation, error) {
	if agent == "" {
		return nil, Errorf(CodeMissingEvidence, "--agent (or GIT_RECORDS_AGENT) is required").WithExtra("flag", "--agent")
	}
	to := from
	var steps []Migration
	for _, m := range migrations {
		if m.From == to {
			steps = append(steps, m)
			to = m.To
		}
	}
	if len(steps) == 0 {
		return nil, nil
	}
	mv, ok := v.(MigrateView)
	if !ok {
		return nil, Errorf(CodeInternal, "this store cannot list its records for a migration")
	}
	records, err := mv.AllRecords()
	if err != nil {
		return nil, err
	}
	writes := MigrateRecords(records, steps, agent, At(env.Now))
	var what []string
	for _, s := range steps {
		what = append(what, strconv.Itoa(s.From)+"→"+strconv.Itoa(s.To)+": "+s.What)
	}
	version := strconv.Itoa(to)
	m := &Mutation{Op: OpMigrate, Type: "store", Title: "format " + strconv.Itoa(from) + " to " + version,
		Message: strings.Join(what, "\n"), Writes: writes, Files: map[string][]byte{FormatPath: []byte(version + "\n")}}
	m.Trailers = []Trailer{{TrailerOp, string(OpMigrate)}}
	for _, r := range writes {
		m.Trailers = append(m.Trailers, Trailer{TrailerID, r.ID})
	}
	m.Trailers = append(m.Trailers, Trailer{TrailerAgent, agent}, Trailer{TrailerFormat, version},
		Trailer{TrailerFromFormat, strconv.Itoa(from)}, Trailer{TrailerRationale, "migrate the store from format " + strconv.Itoa(from) + " to " + version})
	return m, nil
}

// TrailerFromFormat is the format a migrate commit started from.
const TrailerFromFormat = "Evidence-From-Format"

// MigrateRecords applies steps to copies of records and returns those that
// changed, each with a migrate entry dated at, sorted by id.
func MigrateRecords(records []*Record, steps []Migration, agent string, at Timestamp) []*Record {
	var out []*Record
	for _, old := range records {
		r := old.Clone()
		changed := false
		for _, s := range steps {
			if s.Record != nil && s.Record(r) {
				changed = true
			}
		}
		if !changed {
			continue
		}
		r.UpdatedAt = at
		r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(OpMigrate), At: at, Agent: agent})
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
