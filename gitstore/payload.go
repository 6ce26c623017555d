package gitstore

import (
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
