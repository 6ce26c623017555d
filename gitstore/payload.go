package gitstore

import (
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// StorePayload stores data as a raw payload within the write m becomes
// (payloads/<sha256> on the branch, once however many records use it) and
// returns the ref to put in the record's source.payload. The write path
// holds the commit to kernel.CheckPayloads, as verify does.
func StorePayload(m *kernel.Mutation, data []byte) (string, error) {
	return kernel.AttachPayload(m, data)
}

// Payload reads the payload ref names at this view's tip: NOT_FOUND when
// the branch holds none.
func (v *View) Payload(ref string) ([]byte, error) {
	path := kernel.PayloadPath(ref)
	if path == "" {
		return nil, kernel.Errorf(kernel.CodeInvalidRecord, "%q is not a payload ref (sha256:<64 hex digits>)", ref)
	}
	data, err := v.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if data == nil {
		return nil, kernel.Errorf(kernel.CodeNotFound, "no payload %s on %s", ref, v.s.ref)
	}
	return data, nil
}

// LatestSnapshot is the newest snapshot record (by observed_at, then
// created_at) of one external object, or nil: what kernel.Observe
// coalesces a re-observation with. It reads the snapshot records the index
// lists, so it costs one read per snapshot in the store.
func (v *View) LatestSnapshot(extension, externalID string) (*kernel.Record, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	var snapshots []plumbing.Hash
	ix.Each(func(e *IndexEntry) bool {
		if e.Kind == kernel.KindSnapshot {
			snapshots = append(snapshots, e.Blob)
		}
		return true
	})
	var latest *kernel.Record
	for _, blob := range snapshots {
		r, err := v.s.readRecord(blob)
		if err != nil {
			return nil, err
		}
		if r.Source == nil || r.Source.Extension != extension || r.Source.ExternalID != externalID {
			continue
		}
		if latest == nil || observedAt(r).After(observedAt(latest)) || (observedAt(r).Equal(observedAt(latest)) && r.ID > latest.ID) {
			latest = r
		}
	}
	return latest, nil
}

func observedAt(r *kernel.Record) time.Time {
	if r.ObservedAt != nil {
		return r.ObservedAt.Time
	}
	return r.CreatedAt.Time
}
