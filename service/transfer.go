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
// what was created, skipped, left unresolved and not kept. The source is
// read twice, a chunk of notes at a time (transfer.Plan, then Items inside
// the write loop), and each record is written as it is decided: memory
// holds the names of the notes and the paths of what is written, never
// the notes.
func (s *Service) Import(path string, opts ImportOptions, approval kernel.Approval, progress func(format string, args ...any)) (*ImportReport, error) {
	if progress == nil {
		progress = func(string, ...any) {}
	}
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	progress("reading %s…", path)
	plan, rep, err := transfer.Plan(v, path, opts)
	if err != nil {
		return nil, err
	}
	progress("checking and writing %d notes…", plan.Notes())
	var part *ImportReport
	var dropped map[string]bool
	var skips []kernel.ImportSkip
	w, err := kernel.WriteStream(s.store, func(v kernel.View, env kernel.Env, write func([]kernel.ImportWrite) error) (*kernel.Mutation, map[string]bool, error) {
		// Decided again from the start on a new tip: what an earlier
		// attempt found is not this one's.
		part, dropped, skips = &ImportReport{}, nil, nil
		im, err := kernel.NewImporter(v, plan.Input(), env)
		if err != nil {
			return nil, nil, err
		}
		for batch, err := range plan.Items(part) {
			if err != nil {
				return nil, nil, err
			}
			writes, err := im.Decide(batch)
			if err != nil {
				return nil, nil, err
			}
			part.Decided(writes)
			if err := write(writes); err != nil {
				return nil, nil, err
			}
		}
		var m *kernel.Mutation
		m, dropped, err = im.Finish()
		skips = im.Skips()
		return m, dropped, err
	}, approval)
	if err != nil {
		return nil, err
	}
	if w.Revision != "" {
		s.noteCheckout(w.Revision)
	}
	rep.Finish(w.Revision, part, dropped, skips)
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
