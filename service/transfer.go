package service

import (
	"io"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/transfer"
)

// ImportOptions say how import reads a source (transfer.ImportOptions),
// and ImportReport is what an import did, as `import --json` prints it.
type (
	ImportOptions = transfer.ImportOptions
	ImportReport  = transfer.Report
	ExportReport  = transfer.ExportReport
)

// Import reads the source at path (a folder of notes, a Knowledge Kit
// store, JSONL) and creates its records in one import commit through the
// gated write path; progress, when set, hears each phase. The report says
// what was created, skipped, left unresolved and not kept.
func (s *Service) Import(path string, opts ImportOptions, approval kernel.Approval, progress func(format string, args ...any)) (*ImportReport, error) {
	if progress == nil {
		progress = func(string, ...any) {}
	}
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	progress("reading %s…", path)
	in, rep, err := transfer.Plan(v, path, opts)
	if err != nil {
		return nil, err
	}
	progress("checking and writing %d records…", len(in.Items))
	var m *kernel.Mutation
	var skips []kernel.ImportSkip
	w, err := s.write("", approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		var err error
		m, skips, err = kernel.Import(v, in, env)
		return m, err
	})
	if err != nil {
		return nil, err
	}
	rep.Finish(w.Commit, m, skips, in)
	return rep, nil
}

// Export writes every record to dest as a vault or JSONL (see
// transfer.Export); out takes JSONL when dest is "-".
func (s *Service) Export(dest, format string, out io.Writer) (*ExportReport, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	g, err := v.needsIndex("export")
	if err != nil {
		return nil, err
	}
	return transfer.Export(g, dest, format, out)
}
