package kernel

// SnapshotFinder is what a view offers Observe to find the latest snapshot
// of an external object; a view without it has none to coalesce with.
type SnapshotFinder interface {
	LatestSnapshot(extension, externalID string) (*Record, error)
}

// Observe records one observation of an external object (Agent Kit
// observe.records): a snapshot record (kind snapshot, observed_at now)
// whose raw payload is stored once by content hash. An observation is a
// fact the external system owns (role fact, authority external), whatever
// its type's defaults: it decides nothing, so compaction may roll it up. Snapshots are
// append-only, so a changed object is a new snapshot record; re-observing
// an unchanged one is coalesced: nil, nothing to write, when the latest
// snapshot of the same source (extension and externalId) already holds the
// same payload. The coalesced observation's time is in the audit log (an
// `unchanged` line), not on the branch.
func Observe(v View, in CreateInput, payload []byte, env Env) (*Mutation, *Record, error) {
	if in.Source == nil || in.Source.Extension == "" || in.Source.ExternalID == "" {
		return nil, nil, Errorf(CodeMissingEvidence, "an observation names its source: give --extension and --external-id (the object's id in that extension)").
			WithExtra("flag", "--external-id")
	}
	ref := PayloadRef(payload)
	if f, ok := v.(SnapshotFinder); ok {
		prev, err := f.LatestSnapshot(in.Source.Extension, in.Source.ExternalID)
		if err != nil {
			return nil, nil, err
		}
		if prev != nil && prev.Source != nil && prev.Source.Payload == ref {
			return nil, prev, nil
		}
	}
	src := *in.Source
	src.Payload = ref
	in.Source = &src
	if in.Kind == "" {
		in.Kind = KindSnapshot
	}
	if in.Role == "" {
		in.Role = RoleFact
	}
	if in.Authority == "" {
		in.Authority = AuthorityExternal
	}
	if in.Body == "" {
		// Records stay thin: the raw data is the payload.
		in.Body = "Snapshot of " + src.Extension + " " + src.ExternalID + "; the raw payload is " + ref + ".\n"
	}
	if in.ObservedAt == "" {
		in.ObservedAt = At(env.Now).String()
	}
	m, err := Create(v, in, env)
	if err != nil {
		return nil, nil, err
	}
	if _, err := AttachPayload(m, payload); err != nil {
		return nil, nil, err
	}
	return m, nil, nil
}

// isObservation reports whether r is what Observe writes: a snapshot with
// its source's extension, external id and payload, and when it was
// observed.
func isObservation(r *Record) bool {
	return r.Kind == KindSnapshot && r.ObservedAt != nil && r.Source != nil &&
		r.Source.Extension != "" && r.Source.ExternalID != "" && r.Source.Payload != ""
}

// observedWithTypeDefaults reports whether r is an observation holding the
// axes of the snapshot type (role decision, authority computed), as
// Observe wrote before it gave observations their own: no op could set an
// observation's role, so that role records no decision.
func observedWithTypeDefaults(r *Record) bool {
	return isObservation(r) && r.Type == "snapshot" && r.Role == RoleDecision && r.Authority == AuthorityComputed
}
