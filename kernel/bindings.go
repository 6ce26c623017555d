package kernel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Extension bindings (WorkRail's workflow extension points, and the
// project bindings of the Agent Kit extension contract): .records/bindings.yaml
// declares extension slots, each with a purpose, an input and an output
// contract, the implementation kinds it accepts and its default binding,
// and binds slots to implementations: records of the types kit.routine,
// kit.workflow and kit.extension that declare what they accept and produce.

// BindingsPath is the bindings file on the branch.
const BindingsPath = ".records/bindings.yaml"

// OpBind changes .records/bindings.yaml: a policy-gated op.
const OpBind Op = "bind"

// The implementation types, and the kind each is.
const (
	TypeRoutine   = "kit.routine"
	TypeWorkflow  = "kit.workflow"
	TypeExtension = "kit.extension"
)

// implementationKinds maps an implementation type to its kind.
var implementationKinds = map[string]string{TypeRoutine: "routine", TypeWorkflow: "workflow", TypeExtension: "extension"}

// ImplementationKind is the kind of an implementation record's type ("" for
// a record that cannot implement a slot).
func ImplementationKind(typ string) string { return implementationKinds[typ] }

// ExtensionContract is what an implementation declares it accepts (the
// context it needs) and produces (the artifacts it promises).
type ExtensionContract struct {
	Accepts  []string `json:"accepts,omitempty" yaml:"accepts,omitempty,flow"`
	Produces []string `json:"produces,omitempty" yaml:"produces,omitempty,flow"`
}

// Slot is an extension point.
type Slot struct {
	Purpose         string   `json:"purpose,omitempty" yaml:"purpose,omitempty"`
	Default         string   `json:"default" yaml:"default"`
	AcceptedKinds   []string `json:"accepted_kinds" yaml:"accepted_kinds,flow"`
	RequiredInputs  []string `json:"required_inputs,omitempty" yaml:"required_inputs,omitempty,flow"`
	OptionalInputs  []string `json:"optional_inputs,omitempty" yaml:"optional_inputs,omitempty,flow"`
	RequiredOutputs []string `json:"required_outputs,omitempty" yaml:"required_outputs,omitempty,flow"`
}

// Bindings is .records/bindings.yaml.
type Bindings struct {
	Version int             `json:"version" yaml:"version"`
	Slots   map[string]Slot `json:"slots" yaml:"slots"`
	// Bind are the project bindings: slot → implementation record id.
	Bind map[string]string `json:"bindings,omitempty" yaml:"bindings,omitempty"`
}

// ParseBindings reads a bindings file strictly.
func ParseBindings(data []byte) (*Bindings, error) {
	var b Bindings
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&b); err != nil {
		return nil, Errorf(CodeInvalidRecord, "bindings.yaml: %v", err)
	}
	if b.Version != 1 {
		return nil, Errorf(CodeInvalidRecord, "bindings.yaml: version must be 1")
	}
	return &b, nil
}

// SlotNames lists the slots, sorted.
func (b *Bindings) SlotNames() []string {
	out := make([]string, 0, len(b.Slots))
	for name := range b.Slots {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// RuleBindings: the bindings file binds only compatible implementations,
// and a commit's binding manifest is the one its parent resolves.
const RuleBindings = "bindings"

// Compatible says why impl cannot fill slot ("" when it can): it must be an
// active implementation record whose kind the slot accepts and whose
// declared contract accepts every required input and produces every
// required output. Compatibility is the contract, not the name.
func Compatible(slot Slot, impl *Record) string {
	if impl == nil {
		return "no such record"
	}
	kind := ImplementationKind(impl.Type)
	switch {
	case kind == "":
		return fmt.Sprintf("%s is a %s, not an implementation (%s)", impl.ID, impl.Type, strings.Join(implementationTypes(), ", "))
	case !contains(slot.AcceptedKinds, kind):
		return fmt.Sprintf("%s is a %s and the slot accepts %s", impl.ID, kind, strings.Join(slot.AcceptedKinds, ", "))
	case impl.EffectiveStatus() != StatusActive:
		return fmt.Sprintf("%s is %s", impl.ID, impl.EffectiveStatus())
	case impl.Contract == nil:
		return fmt.Sprintf("%s declares no extension_contract, so it cannot be bound", impl.ID)
	}
	if miss := missing(slot.RequiredInputs, impl.Contract.Accepts); len(miss) > 0 {
		return fmt.Sprintf("%s does not accept the required inputs %s", impl.ID, strings.Join(miss, ", "))
	}
	if miss := missing(slot.RequiredOutputs, impl.Contract.Produces); len(miss) > 0 {
		return fmt.Sprintf("%s does not produce the required outputs %s", impl.ID, strings.Join(miss, ", "))
	}
	return ""
}

func implementationTypes() []string {
	out := make([]string, 0, len(implementationKinds))
	for t := range implementationKinds {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// CheckBindings judges a bindings file against the records of the tip it
// lands on: well-formed slots, each default and each project binding a
// compatible implementation, no binding of an undeclared slot.
func CheckBindings(b *Bindings, v View) []Violation {
	var vs violations
	const fix = "bind each slot to an implementation record (kit.routine, kit.workflow, kit.extension) whose extension_contract accepts the slot's required inputs and produces its required outputs"
	kinds := []string{"routine", "workflow", "extension"}
	for _, name := range b.SlotNames() {
		s := b.Slots[name]
		if !linkKindPattern.MatchString(name) {
			vs.add(RuleBindings, "", "name slots with a lowercase word (design_review)", "slot %q is not a lowercase word", name)
		}
		if len(s.AcceptedKinds) == 0 {
			vs.add(RuleBindings, "", "list accepted_kinds", "slot %s accepts no kind", name)
		}
		for _, k := range s.AcceptedKinds {
			if !contains(kinds, k) {
				vs.add(RuleBindings, "", "accepted_kinds are routine, workflow, extension", "slot %s accepts unknown kind %q", name, k)
			}
		}
		if s.Default == "" {
			vs.add(RuleBindings, "", "every slot has a default binding", "slot %s has no default", name)
			continue
		}
		if why := compatibleIn(v, s, s.Default); why != "" {
			vs.add(RuleBindings, s.Default, fix, "slot %s's default %s: %s", name, s.Default, why)
		}
	}
	for _, name := range sortedKeys(b.Bind) {
		s, ok := b.Slots[name]
		if !ok {
			vs.add(RuleBindings, "", "bind declared slots only", "binding for undeclared slot %s", name)
			continue
		}
		if why := compatibleIn(v, s, b.Bind[name]); why != "" {
			vs.add(RuleBindings, b.Bind[name], fix, "binding %s → %s is incompatible: %s", name, b.Bind[name], why)
		}
	}
	return vs
}

func compatibleIn(v View, s Slot, id string) string {
	r, err := v.Record(id)
	if err != nil {
		return err.Error()
	}
	return Compatible(s, r)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ChangeBindings is the bind op: it writes .records/bindings.yaml, refused
// (INVALID_RECORD, the violations in "violations") when the file binds an
// incompatible implementation.
func ChangeBindings(v View, data []byte, ev Evidence) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if err := requireText("evidence.rationale", ev.Rationale, "why the bindings change"); err != nil {
		return nil, err
	}
	b, err := ParseBindings(data)
	if err != nil {
		return nil, err
	}
	if vs := CheckBindings(b, v); len(vs) > 0 {
		return nil, Errorf(CodeInvalidRecord, "%s: %s", vs[0].Message, vs[0].Fix).WithExtra("rule", RuleBindings).WithExtra("violations", vs)
	}
	m := &Mutation{Op: OpBind, Type: "store", Title: "change " + BindingsPath, Message: ev.Note, Files: map[string][]byte{BindingsPath: data}}
	m.Trailers = append(baseTrailers(OpBind, ev.Agent, ev.SessionID), Trailer{TrailerRationale, ev.Rationale})
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return m, nil
}

// Binding sources, in resolution order (a per-call flag, the project
// file, the slot's default), plus the explicit fallback and a resumed run.
const (
	SourceFlag     = "flag"
	SourceProject  = "project"
	SourceDefault  = "default"
	SourceFallback = "fallback-to-default"
	SourceResumed  = "resumed"
)

// BindingUse is one entry of a binding manifest: which implementation
// filled a slot, where that choice came from, and the content hash of the
// implementation record as it was.
type BindingUse struct {
	Slot       string `json:"slot"`
	ResolvedTo string `json:"resolved_to"`
	Kind       string `json:"kind"`
	Source     string `json:"source"`
	Hash       string `json:"hash"`
	// Failed is the implementation a fallback replaced; From the commit a
	// resumed binding was taken from.
	Failed string `json:"failed,omitempty"`
	From   string `json:"from,omitempty"`
}

// RecordDigest is the content hash of a record as a binding manifest pins
// it: sha256 of its canonical JSON.
func RecordDigest(r *Record) string {
	data, _ := json.Marshal(r)
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Trailer renders the entry as an Evidence-Binding value.
func (u BindingUse) Trailer() Trailer {
	s := u.Slot + " " + u.ResolvedTo + " source=" + u.Source + " kind=" + u.Kind + " hash=" + u.Hash
	if u.Failed != "" {
		s += " failed=" + u.Failed
	}
	if u.From != "" {
		s += " from=" + u.From
	}
	return Trailer{TrailerBinding, s}
}

// ParseBindingTrailer reads an Evidence-Binding value back.
func ParseBindingTrailer(s string) (BindingUse, error) {
	parts := strings.Fields(s)
	if len(parts) < 2 {
		return BindingUse{}, fmt.Errorf("Evidence-Binding %q is not \"<slot> <implementation> source=… kind=… hash=…\"", s)
	}
	u := BindingUse{Slot: parts[0], ResolvedTo: parts[1]}
	for _, p := range parts[2:] {
		k, val, _ := strings.Cut(p, "=")
		switch k {
		case "source":
			u.Source = val
		case "kind":
			u.Kind = val
		case "hash":
			u.Hash = val
		case "failed":
			u.Failed = val
		case "from":
			u.From = val
		default:
			return BindingUse{}, fmt.Errorf("Evidence-Binding %q: unknown field %q", s, k)
		}
	}
	return u, nil
}

// Manifest reads the binding manifest a commit's trailers carry.
func Manifest(trailers []Trailer) ([]BindingUse, error) {
	var out []BindingUse
	for _, v := range TrailerValues(trailers, TrailerBinding) {
		u, err := ParseBindingTrailer(v)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// Resolve is how a run picks its bindings: for each slot, a per-call flag
// (flags: slot → implementation handle), else the project file, else the
// slot's default; a slot in fallback falls back to the default, explicitly,
// recording the implementation that failed; resumed (a manifest read from
// a commit) pins a slot to exactly what that commit used. Every pick must
// be compatible; a resumed one must still hash the same.
func Resolve(b *Bindings, v View, flags map[string]string, fallback []string, resumed []BindingUse, resumedFrom string) ([]BindingUse, error) {
	for slot := range flags {
		if _, ok := b.Slots[slot]; !ok {
			return nil, Errorf(CodeUsage, "--bind %s: no such slot (slots: %s)", slot, strings.Join(b.SlotNames(), ", ")).WithExtra("flag", "--bind")
		}
	}
	for _, slot := range fallback {
		if _, ok := b.Slots[slot]; !ok {
			return nil, Errorf(CodeUsage, "--fallback %s: no such slot (slots: %s)", slot, strings.Join(b.SlotNames(), ", ")).WithExtra("flag", "--fallback")
		}
	}
	pinned := map[string]BindingUse{}
	for _, u := range resumed {
		pinned[u.Slot] = u
	}
	var out []BindingUse
	for _, name := range b.SlotNames() {
		s := b.Slots[name]
		u := BindingUse{Slot: name}
		switch p, ok := pinned[name]; {
		case ok:
			u.ResolvedTo, u.Source, u.From = p.ResolvedTo, SourceResumed, resumedFrom
		case flags[name] != "":
			id, err := mustResolve(v, flags[name], "--bind implementation")
			if err != nil {
				return nil, err
			}
			u.ResolvedTo, u.Source = id, SourceFlag
		case b.Bind[name] != "":
			u.ResolvedTo, u.Source = b.Bind[name], SourceProject
		default:
			u.ResolvedTo, u.Source = s.Default, SourceDefault
		}
		if contains(fallback, name) {
			if u.ResolvedTo == s.Default {
				return nil, Errorf(CodeUsage, "--fallback %s: the slot is already bound to its default %s", name, s.Default).WithExtra("flag", "--fallback")
			}
			u.Failed, u.ResolvedTo, u.Source, u.From = u.ResolvedTo, s.Default, SourceFallback, ""
		}
		impl, err := v.Record(u.ResolvedTo)
		if err != nil {
			return nil, err
		}
		if why := Compatible(s, impl); why != "" {
			return nil, Errorf(CodeInvalidRecord, "slot %s cannot be bound to %s: %s", name, u.ResolvedTo, why).WithExtra("rule", RuleBindings)
		}
		u.Kind, u.Hash = ImplementationKind(impl.Type), RecordDigest(impl)
		if p, ok := pinned[name]; ok && u.Source == SourceResumed && p.Hash != u.Hash {
			return nil, Errorf(CodeConflict, "slot %s was bound to %s at %s with hash %s, and that record has changed since (%s): a resumed run does not pick up different bindings silently; start a new run instead",
				name, u.ResolvedTo, resumedFrom, p.Hash, u.Hash)
		}
		out = append(out, u)
	}
	return out, nil
}

// WithBindings adds the manifest to a mutation's trailers, and a fallback
// to the provenance of each record it creates, so a commit shows what
// produced it.
func WithBindings(m *Mutation, manifest []BindingUse) *Mutation {
	if m == nil || len(manifest) == 0 {
		return m
	}
	var fallbacks []string
	for _, u := range manifest {
		m.Trailers = append(m.Trailers, u.Trailer())
		if u.Source == SourceFallback {
			fallbacks = append(fallbacks, u.Slot+": fallback-to-default ("+u.Failed+" failed)")
		}
	}
	if len(fallbacks) > 0 && m.Op == OpCreate {
		for _, r := range m.Writes {
			r.Provenance.Fallbacks = append(r.Provenance.Fallbacks, fallbacks...)
		}
	}
	return m
}

// CheckManifest judges a commit's binding manifest against its parent: the
// bindings file there (nil when there is none) and its records. Every
// entry names a declared slot, a compatible implementation whose content
// hash is the one the parent holds, and a source that says the truth: a
// project binding is the file's, a default or fallback is the slot's
// default; a fallback is also in the provenance of what the commit creates.
// A commit of a run under bindings carries one entry per slot or none.
func CheckManifest(op Op, trailers []Trailer, changes []RecordChange, b *Bindings, v View) []Violation {
	var vs violations
	manifest, err := Manifest(trailers)
	const fix = "write commits under bindings with git records, which resolves the manifest from the parent"
	if err != nil {
		vs.add(RuleBindings, "", fix, "%v", err)
		return vs
	}
	if len(manifest) == 0 {
		return nil
	}
	if b == nil {
		vs.add(RuleBindings, "", fix, "the commit carries a binding manifest and its parent has no %s", BindingsPath)
		return vs
	}
	seen := map[string]bool{}
	for _, u := range manifest {
		s, ok := b.Slots[u.Slot]
		switch {
		case !ok:
			vs.add(RuleBindings, "", fix, "manifest binds undeclared slot %s", u.Slot)
			continue
		case seen[u.Slot]:
			vs.add(RuleBindings, "", fix, "manifest binds slot %s twice", u.Slot)
		}
		seen[u.Slot] = true
		impl, err := v.Record(u.ResolvedTo)
		if err != nil {
			vs.add(RuleBindings, u.ResolvedTo, "retry", "cannot read %s: %v", u.ResolvedTo, err)
			continue
		}
		if why := Compatible(s, impl); why != "" {
			vs.add(RuleBindings, u.ResolvedTo, fix, "manifest binds %s to %s: %s", u.Slot, u.ResolvedTo, why)
			continue
		}
		if h := RecordDigest(impl); h != u.Hash || u.Kind != ImplementationKind(impl.Type) {
			vs.add(RuleBindings, u.ResolvedTo, fix, "manifest says %s is %s %s, the parent holds %s %s", u.ResolvedTo, u.Kind, u.Hash, ImplementationKind(impl.Type), h)
		}
		switch u.Source {
		case SourceProject:
			if b.Bind[u.Slot] != u.ResolvedTo {
				vs.add(RuleBindings, u.ResolvedTo, fix, "manifest says slot %s is bound to %s by the project file, which binds %q", u.Slot, u.ResolvedTo, b.Bind[u.Slot])
			}
		case SourceDefault, SourceFallback:
			if s.Default != u.ResolvedTo {
				vs.add(RuleBindings, u.ResolvedTo, fix, "manifest says %s is slot %s's default, which is %s", u.ResolvedTo, u.Slot, s.Default)
			}
			if u.Source == SourceFallback && u.Failed == "" {
				vs.add(RuleBindings, u.ResolvedTo, fix, "a fallback names the implementation that failed")
			}
		case SourceFlag, SourceResumed:
		default:
			vs.add(RuleBindings, u.ResolvedTo, fix, "manifest source %q is none of flag, project, default, fallback-to-default, resumed", u.Source)
		}
		if u.Source == SourceFallback && op == OpCreate {
			want := u.Slot + ": fallback-to-default (" + u.Failed + " failed)"
			for _, c := range changes {
				if c.Added() && c.New != nil && !contains(c.New.Provenance.Fallbacks, want) {
					vs.add(RuleBindings, c.ID, fix, "record %s was created under a fallback its provenance does not record", c.ID)
				}
			}
		}
	}
	for _, name := range b.SlotNames() {
		if !seen[name] {
			vs.add(RuleBindings, "", fix, "manifest leaves slot %s out: a manifest names every slot", name)
		}
	}
	return vs
}
