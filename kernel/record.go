// Package kernel is the record model of git-records and its rules: the
// Knowledge Kit envelope with the Agent Kit axes, the relation vocabulary,
// the mutation ops with the evidence each requires, the status lifecycle,
// identity handles and error codes. It is pure: no git, no files. The store
// (gitstore) gives it a consistent view of one tip and writes back the
// Mutation it returns.
package kernel

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// FormatVersion is the version of the on-branch format (.records/format and
// the Record-Format trailer).
const FormatVersion = "1"

// Record is one record: the Knowledge Kit envelope (store contract §1.1,
// Addenda A, B, C, H, J) plus the Agent Kit axes, source and freshness.
// Field order here is the canonical key order of the file format.
type Record struct {
	ID         string     `json:"id" yaml:"id"`
	Type       string     `json:"type" yaml:"type"`
	Title      string     `json:"title" yaml:"title"`
	Category   string     `json:"category" yaml:"category"`
	Status     Status     `json:"status,omitempty" yaml:"status,omitempty"`
	Kind       Kind       `json:"kind,omitempty" yaml:"kind,omitempty"`
	Role       Role       `json:"role,omitempty" yaml:"role,omitempty"`
	Authority  Authority  `json:"authority,omitempty" yaml:"authority,omitempty"`
	Tags       []string   `json:"tags,omitempty" yaml:"tags,omitempty,flow"`
	Aliases    []string   `json:"aliases,omitempty" yaml:"aliases,omitempty,flow"`
	From       string     `json:"from,omitempty" yaml:"from,omitempty"`
	To         string     `json:"to,omitempty" yaml:"to,omitempty"`
	Relation   string     `json:"relation,omitempty" yaml:"relation,omitempty"`
	MapsTo     string     `json:"maps_to,omitempty" yaml:"maps_to,omitempty"`
	CreatedAt  Timestamp  `json:"created_at" yaml:"created_at"`
	UpdatedAt  Timestamp  `json:"updated_at" yaml:"updated_at"`
	ExpiresAt  *Timestamp `json:"expires_at,omitempty" yaml:"expires_at,omitempty"`
	TTLSeconds *float64   `json:"ttl_seconds,omitempty" yaml:"ttl_seconds,omitempty"`
	ObservedAt *Timestamp `json:"observed_at,omitempty" yaml:"observed_at,omitempty"`
	Source     *Source    `json:"source,omitempty" yaml:"source,omitempty"`
	// Properties and WrittenAs: of a record imported from a foreign note
	// (properties.go): its front matter as the source wrote it, and each
	// link of the body the import rewrote, as the source wrote it.
	Properties Properties     `json:"properties,omitempty" yaml:"properties,omitempty"`
	WrittenAs  []WrittenLink  `json:"written_as,omitempty" yaml:"written_as,omitempty"`
	Scope      *Scope         `json:"scope,omitempty" yaml:"scope,omitempty"`
	Freshness  *FreshnessMark `json:"freshness,omitempty" yaml:"freshness,omitempty"`
	// Owner, Creator and Execution: of execution records only (execution.go).
	Owner     *Owner     `json:"owner,omitempty" yaml:"owner,omitempty"`
	Creator   *Creator   `json:"creator,omitempty" yaml:"creator,omitempty"`
	Execution *Execution `json:"execution,omitempty" yaml:"execution,omitempty"`
	// Contract: what an implementation (kit.routine, kit.workflow,
	// kit.extension) accepts and produces, for extension bindings.
	Contract    *ExtensionContract `json:"extension_contract,omitempty" yaml:"extension_contract,omitempty"`
	Provenance  Provenance         `json:"provenance" yaml:"provenance"`
	Links       []Link             `json:"links,omitempty" yaml:"links,omitempty"`
	MutationLog []MutationEntry    `json:"mutation_log,omitempty" yaml:"mutation_log,omitempty"`
	Body        string             `json:"body" yaml:"-"`
}

// Link is a directed edge from the record that holds it (contract §2.1).
type Link struct {
	TargetID string `json:"target_id" yaml:"target_id"`
	Kind     string `json:"kind" yaml:"kind"`
	Label    string `json:"label,omitempty" yaml:"label,omitempty"`
}

// Provenance is the immutable creation provenance (contract §4.1).
type Provenance struct {
	Agent     string   `json:"agent" yaml:"agent"`
	SessionID string   `json:"session_id,omitempty" yaml:"session_id,omitempty"`
	SourceIDs []string `json:"source_ids,omitempty" yaml:"source_ids,omitempty,flow"`
	Note      string   `json:"note,omitempty" yaml:"note,omitempty"`
	// Fallbacks: the extension slots whose bound implementation failed
	// and fell back to the default when the record was made, explicitly
	// ("design_review: fallback-to-default (my-review failed)").
	Fallbacks []string `json:"fallbacks,omitempty" yaml:"fallbacks,omitempty"`
}

// MutationEntry is one append-only mutation log entry (contract §4.2).
type MutationEntry struct {
	Op    string    `json:"op" yaml:"op"`
	At    Timestamp `json:"at" yaml:"at"`
	Agent string    `json:"agent" yaml:"agent"`
	Note  string    `json:"note,omitempty" yaml:"note,omitempty"`
	// NewID is the superseding record of a superseded-by entry, where the
	// contract's readers look for it (it is in Evidence too).
	NewID    string         `json:"new_id,omitempty" yaml:"new_id,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty" yaml:"evidence,omitempty"`
}

// Source locates the external truth a record was normalized from (Agent Kit,
// Identity). Payload is "sha256:<hex>" of a raw payload stored by content.
type Source struct {
	Extension   string `json:"extension,omitempty" yaml:"extension,omitempty"`
	ExternalID  string `json:"externalId,omitempty" yaml:"externalId,omitempty"`
	ExternalURL string `json:"externalUrl,omitempty" yaml:"externalUrl,omitempty"`
	Payload     string `json:"payload,omitempty" yaml:"payload,omitempty"`
}

// Scope is the code a claim is about, captured when it was written.
type Scope struct {
	GitHead          string   `json:"gitHead,omitempty" yaml:"gitHead,omitempty"`
	Base             string   `json:"base,omitempty" yaml:"base,omitempty"`
	Paths            []string `json:"paths,omitempty" yaml:"paths,omitempty"`
	ChangedFilesHash string   `json:"changedFilesHash,omitempty" yaml:"changedFilesHash,omitempty"`
	// Files are the content hashes behind ChangedFilesHash, so a stale
	// verdict can name the paths that changed.
	Files map[string]string `json:"files,omitempty" yaml:"files,omitempty"`
}

// FreshnessMark is the last freshness verdict written back by verify_record.
type FreshnessMark struct {
	State     FreshnessState `json:"state" yaml:"state"`
	CheckedAt Timestamp      `json:"checkedAt" yaml:"checkedAt"`
}

// TimestampLayout is fixed-width UTC with milliseconds, so timestamps sort as
// strings (contract protocol rule 3).
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp is a UTC instant that always serializes in TimestampLayout.
type Timestamp struct{ time.Time }

// At returns t as a Timestamp, truncated to the millisecond the format keeps.
func At(t time.Time) Timestamp { return Timestamp{t.UTC().Truncate(time.Millisecond)} }

func (t Timestamp) String() string { return t.UTC().Format(TimestampLayout) }

// ParseTimestamp accepts ISO-8601 / RFC 3339 instants with an offset or Z,
// and an ISO-8601 calendar date ("2026-09-01"), read as midnight UTC the way
// the contract's JavaScript adapters read it ("expires on 2026-09-01", J.1).
func ParseTimestamp(s string) (Timestamp, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z07:00", time.DateOnly} {
		if v, err := time.Parse(layout, s); err == nil {
			return At(v), nil
		}
	}
	return Timestamp{}, fmt.Errorf("%q is not an ISO-8601 UTC timestamp like %s", s, TimestampLayout)
}

func (t Timestamp) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }

func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp must be a string: %w", err)
	}
	v, err := ParseTimestamp(s)
	*t = v
	return err
}

func (t Timestamp) MarshalYAML() (any, error) { return t.String(), nil }

func (t *Timestamp) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: timestamp must be a scalar", n.Line)
	}
	v, err := ParseTimestamp(n.Value)
	*t = v
	return err
}

// EffectiveExpiry is expires_at, else created_at + ttl_seconds (Addendum J.2).
func (r *Record) EffectiveExpiry() (time.Time, bool) {
	if r.ExpiresAt != nil {
		return r.ExpiresAt.Time, true
	}
	if r.TTLSeconds != nil {
		// time.Duration overflows after ~292 years and would put a long ttl in
		// the past; add whole seconds to the Unix time instead.
		whole, frac := math.Modf(min(*r.TTLSeconds, maxTTLSeconds))
		t := time.Unix(r.CreatedAt.Unix()+int64(whole), int64(r.CreatedAt.Nanosecond())).UTC()
		return t.Add(time.Duration(frac * float64(time.Second))), true
	}
	return time.Time{}, false
}

// maxTTLSeconds (~31.7 million years) caps ttl_seconds in EffectiveExpiry so
// the sum cannot overflow; no clock will reach it.
const maxTTLSeconds = 1e15

// Expired reports whether now is at or past the effective expiry (inclusive, J.3).
func (r *Record) Expired(now time.Time) bool {
	exp, ok := r.EffectiveExpiry()
	return ok && !now.Before(exp)
}

// EffectiveStatus treats an absent status as active (Addendum B.1).
func (r *Record) EffectiveStatus() Status {
	if r.Status == "" {
		return StatusActive
	}
	return r.Status
}

// Clone returns a deep copy, so an op can change a record without touching
// the snapshot it read it from.
func (r *Record) Clone() *Record {
	c := *r
	c.Tags = append([]string(nil), r.Tags...)
	c.Aliases = append([]string(nil), r.Aliases...)
	c.Links = append([]Link(nil), r.Links...)
	c.MutationLog = append([]MutationEntry(nil), r.MutationLog...)
	c.Provenance.SourceIDs = append([]string(nil), r.Provenance.SourceIDs...)
	c.Provenance.Fallbacks = append([]string(nil), r.Provenance.Fallbacks...)
	if r.Contract != nil {
		c.Contract = &ExtensionContract{Accepts: append([]string(nil), r.Contract.Accepts...), Produces: append([]string(nil), r.Contract.Produces...)}
	}
	if r.ExpiresAt != nil {
		v := *r.ExpiresAt
		c.ExpiresAt = &v
	}
	if r.TTLSeconds != nil {
		v := *r.TTLSeconds
		c.TTLSeconds = &v
	}
	if r.ObservedAt != nil {
		v := *r.ObservedAt
		c.ObservedAt = &v
	}
	if r.Source != nil {
		v := *r.Source
		c.Source = &v
	}
	c.Properties = r.Properties.Clone()
	c.WrittenAs = append([]WrittenLink(nil), r.WrittenAs...)
	if r.Scope != nil {
		v := *r.Scope
		v.Paths = append([]string(nil), r.Scope.Paths...)
		if r.Scope.Files != nil {
			v.Files = make(map[string]string, len(r.Scope.Files))
			for k, h := range r.Scope.Files {
				v.Files[k] = h
			}
		}
		c.Scope = &v
	}
	if r.Freshness != nil {
		v := *r.Freshness
		c.Freshness = &v
	}
	if r.Owner != nil {
		v := *r.Owner
		c.Owner = &v
	}
	if r.Creator != nil {
		v := *r.Creator
		c.Creator = &v
	}
	if r.Execution != nil {
		v := *r.Execution
		if r.Execution.CleanupOnRunEnd != nil {
			b := *r.Execution.CleanupOnRunEnd
			v.CleanupOnRunEnd = &b
		}
		c.Execution = &v
	}
	return &c
}

// HasLink reports whether r links to target with kind.
func (r *Record) HasLink(target, kind string) bool { return HasLink(r.Links, target, kind) }

// HasLink reports whether links hold a (target, kind) edge: links are
// identified by target and kind, whatever their label.
func HasLink(links []Link, target, kind string) bool {
	for _, l := range links {
		if l.TargetID == target && l.Kind == kind {
			return true
		}
	}
	return false
}
