package kernel

import "strings"

// The store port: what a front-end (CLI, hooks, contract) needs from a
// record store, in the kernel's terms. gitstore implements it over a git
// ref; kernel/memstore in memory. kernel/storetest is the one conformance
// suite every implementation runs, so a second store can plug in and be
// shown to behave like the first.

// The store's own files, kept beside the records and read through
// Snapshot.ReadFile: the format version, who may sign, and the policy.
const (
	FormatPath         = ".records/format"
	AllowedSignersPath = ".records/allowed_signers"
	PolicyPath         = ".records/policy.yaml"
)

// DecideFunc is an op as a store's write loop runs it: given a view of the
// tip, say what to write (nil for nothing). It may run several times, once
// per tip, when other writers move the store in between, so it must read
// everything it decides on from the view it is given. The view a Store
// passes is a Snapshot.
type DecideFunc func(v View, env Env) (*Mutation, error)

// Snapshot is a consistent read of a store at one tip: later writes do not
// change what it answers.
type Snapshot interface {
	View
	// Revision names the tip this snapshot reads; "" for a store that was
	// never set up.
	Revision() string
	// ReadFile returns one of the store's own files (FormatPath,
	// AllowedSignersPath, PolicyPath) at this tip; nil when absent, and
	// empty but not nil when present and empty (an empty allowed_signers
	// trusts no one; an absent one is a store without a signer list).
	ReadFile(path string) ([]byte, error)
	// IDs lists the id of every record at this tip, sorted.
	IDs() ([]string, error)
}

// Reader gives consistent reads of a store.
type Reader interface {
	// Snapshot reads the current tip.
	Snapshot() (Snapshot, error)
	// Revision names the current tip; "" for a store that was never set up.
	Revision() (string, error)
}

// Writer lands ops on a store.
type Writer interface {
	// Write runs decide against a snapshot of the tip and lands its mutation
	// with a compare-and-swap from that tip. When another writer moved the
	// tip in between, decide runs again on a snapshot of the new tip, so a
	// rule it checked holds for what lands. A nil mutation writes nothing and
	// leaves the tip where it is; an error from decide is returned as is.
	Write(decide DecideFunc) (Written, error)
}

// GatedWriter is a Writer whose store judges every write against the
// policy on its branch before it lands (gitstore's gate): the caller's
// approval of an op the policy marks as needing one travels with the op.
// A store without a policy gate takes its writes through Writer alone.
type GatedWriter interface {
	WriteApproved(decide DecideFunc, approval Approval) (Written, error)
}

// StreamFunc decides an op that writes more records than a writer may
// hold, an import: on a snapshot of the tip it hands each batch of records
// to write to write as it decides them, and returns the op's mutation
// without them (its Writes and Files empty) and the records it handed out
// that it leaves out after all, by id. A store may run it again on a new
// tip, as it runs a DecideFunc.
type StreamFunc func(v View, env Env, write func([]ImportWrite) error) (m *Mutation, dropped map[string]bool, err error)

// StreamWriter is a store that lands a streamed op holding of its records
// only what its commit needs (gitstore: their paths and blobs), judged
// with approval as a GatedWriter judges a write.
type StreamWriter interface {
	WriteStream(decide StreamFunc, approval Approval) (Written, error)
}

// WriteStream lands a streamed op on s: as a stream where s is a
// StreamWriter, else gathered into one mutation by the same decision.
func WriteStream(s Writer, decide StreamFunc, approval Approval) (Written, error) {
	if sw, ok := s.(StreamWriter); ok {
		return sw.WriteStream(decide, approval)
	}
	gathered := func(v View, env Env) (*Mutation, error) {
		var writes []ImportWrite
		m, dropped, err := decide(v, env, func(batch []ImportWrite) error {
			writes = append(writes, batch...)
			return nil
		})
		if err != nil || m == nil {
			return nil, err
		}
		return m, gather(m, writes, dropped)
	}
	if g, ok := s.(GatedWriter); ok {
		return g.WriteApproved(gathered, approval)
	}
	return s.Write(gathered)
}

// gather puts the records a streamed op wrote, but those it dropped, and
// their payloads into its mutation.
func gather(m *Mutation, writes []ImportWrite, dropped map[string]bool) error {
	for _, w := range writes {
		if dropped[w.Record.ID] {
			continue
		}
		m.Writes = append(m.Writes, w.Record)
		if w.Payload != nil {
			if _, err := AttachPayload(m, w.Payload); err != nil {
				return err
			}
		}
	}
	return nil
}

// Store is a record store: consistent reads and compare-and-swap writes.
// A store is set up (its FormatPath written, by init) before ops write to it.
type Store interface {
	Reader
	Writer
}

// Written reports a Write.
type Written struct {
	Revision string    // the tip the write landed; "" when decide wrote nothing
	Mutation *Mutation // what landed; nil when nothing did
	Attempts int       // how many times decide ran
}

// CheckWrite is the check every store's write loop makes before it lands a
// mutation decided on before: m must pass its op's own rules
// (CheckCommit), as verify will judge the commit. An op whose output breaks
// them is a bug, reported as INTERNAL and never written.
func CheckWrite(before View, m *Mutation) error {
	changes, err := MutationChanges(before, m)
	if err != nil {
		return err
	}
	vs := CheckCommit(m.Op, m.Trailers, changes, before)
	if len(vs) == 0 {
		return nil
	}
	msgs := make([]string, len(vs))
	for i, x := range vs {
		msgs[i] = x.String()
	}
	return Errorf(CodeInternal, "%s would write a commit that breaks its own rules, so nothing was written (a bug: please report it): %s",
		m.Op, strings.Join(msgs, "; "))
}
