package kernel

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Profile is a named set of permissions: which ops, on which record types,
// under which category prefixes (empty lists allow everything).
type Profile struct {
	Ops        []Op     `yaml:"ops"`
	Types      []string `yaml:"types,omitempty"`
	Categories []string `yaml:"categories,omitempty"`
	Inherits   string   `yaml:"inherits,omitempty"`
}

// Built-in profiles (DESIGN, Policy).
var builtinProfiles = map[string]Profile{
	"read-only":   {},
	"contributor": {Ops: []Op{OpCreate, OpUpdate, OpLink, OpPropose, OpVerify, OpMerge, OpCancel, OpClose, OpCleanup}},
	"maintainer": {Ops: []Op{OpCreate, OpUpdate, OpLink, OpPropose, OpVerify, OpApply, OpReject, OpSupersede, OpRetire, OpPolicy, OpInit, OpMerge,
		OpCancel, OpClose, OpCleanup, OpForceClose, OpBind}},
	"ops": {Ops: []Op{"*"}},
}

// Rule maps a scope to a profile. A rule with neither principal nor
// category is the store-wide default; the most specific matching rule wins:
// principal and category, then principal, then category (longest prefix
// first), then the default.
type Rule struct {
	Principal string `yaml:"principal,omitempty"`
	Category  string `yaml:"category,omitempty"`
	Profile   string `yaml:"profile"`
}

// Policy is .records/policy.yaml.
type Policy struct {
	Version         int                `yaml:"version"`
	RequireApproval Risk               `yaml:"require_approval,omitempty"`
	Profiles        map[string]Profile `yaml:"profiles,omitempty"`
	Rules           []Rule             `yaml:"rules"`
	// Execution limits nesting of execution records (execution.go).
	Execution ExecutionLimits `yaml:"execution,omitempty"`
}

// DefaultPolicy applies when the branch has no policy file: every allowed
// signer is a maintainer and nothing needs approval.
var DefaultPolicy = &Policy{Version: 1, Rules: []Rule{{Profile: "maintainer"}}}

// ParsePolicy reads and checks a policy file strictly.
func ParsePolicy(data []byte) (*Policy, error) {
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, Errorf(CodeInvalidRecord, "policy.yaml: %v", err)
	}
	if p.Version != 1 {
		return nil, Errorf(CodeInvalidRecord, "policy.yaml: version must be 1")
	}
	if p.RequireApproval != "" {
		if _, ok := riskOrder[p.RequireApproval]; !ok {
			return nil, Errorf(CodeInvalidRecord, "policy.yaml: require_approval %q is not a risk level (read_only, writes_local_state, external_mutation, destructive)", p.RequireApproval)
		}
	}
	if p.Execution.MaxDepth < 0 || p.Execution.MaxChildren < 0 {
		return nil, Errorf(CodeInvalidRecord, "policy.yaml: execution limits must be 0 (no limit) or positive")
	}
	names := make([]string, 0, len(p.Profiles))
	for name := range p.Profiles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, builtin := builtinProfiles[name]; builtin {
			return nil, Errorf(CodeInvalidRecord, "policy.yaml: profile %q is built in and cannot be redefined", name)
		}
		// Every profile must resolve and say only what Decide can use: a
		// misspelt op or category would otherwise grant nothing, silently.
		if _, err := p.profile(name, 0); err != nil {
			return nil, Errorf(CodeInvalidRecord, "policy.yaml: profile %q: %v", name, err)
		}
		prof := p.Profiles[name]
		for _, op := range prof.Ops {
			if _, known := opSpecs[op]; !known && op != "*" {
				return nil, Errorf(CodeInvalidRecord, "policy.yaml: profile %q: unknown op %q", name, op)
			}
		}
		for _, typ := range prof.Types {
			if _, known := LookupType(typ); !known {
				return nil, Errorf(CodeInvalidRecord, "policy.yaml: profile %q: unknown type %q", name, typ)
			}
		}
		for _, c := range prof.Categories {
			if !categoryPattern.MatchString(c) {
				return nil, Errorf(CodeInvalidRecord, "policy.yaml: profile %q: invalid category %q", name, c)
			}
		}
	}
	for i, r := range p.Rules {
		if _, err := p.profile(r.Profile, 0); err != nil {
			return nil, Errorf(CodeInvalidRecord, "policy.yaml: rule %d: %v", i+1, err)
		}
		if r.Category != "" && !categoryPattern.MatchString(r.Category) {
			return nil, Errorf(CodeInvalidRecord, "policy.yaml: rule %d: invalid category %q", i+1, r.Category)
		}
	}
	return &p, nil
}

// Encode renders the policy as YAML.
func (p *Policy) Encode() ([]byte, error) { return yaml.Marshal(p) }

// profile resolves a profile by name, following inherits (ops are unioned;
// types and categories narrow to the child's when it sets them).
func (p *Policy) profile(name string, depth int) (Profile, error) {
	if depth > 8 {
		return Profile{}, fmt.Errorf("profile %q inherits in a cycle", name)
	}
	if b, ok := builtinProfiles[name]; ok {
		return b, nil
	}
	c, ok := p.Profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown profile %q (built in: read-only, contributor, maintainer, ops)", name)
	}
	if c.Inherits != "" {
		parent, err := p.profile(c.Inherits, depth+1)
		if err != nil {
			return Profile{}, err
		}
		c.Ops = append(append([]Op(nil), parent.Ops...), c.Ops...)
		if c.Types == nil {
			c.Types = parent.Types
		}
		if c.Categories == nil {
			c.Categories = parent.Categories
		}
	}
	return c, nil
}

// Decision explains whether a principal may run an op.
type Decision struct {
	Allowed       bool   `json:"allowed"`
	NeedsApproval bool   `json:"needs_approval"`
	Profile       string `json:"profile"`
	Rule          string `json:"rule"`   // the rule that chose the profile
	Reason        string `json:"reason"` // why allowed or denied, for people
	Risk          Risk   `json:"risk"`
}

// Decide applies the policy to (principal, op, type, category).
func (p *Policy) Decide(principal string, op Op, typ, category string) Decision {
	spec, known := opSpecs[op]
	d := Decision{Risk: spec.Risk}
	if !known {
		d.Reason = fmt.Sprintf("unknown op %q", op)
		return d
	}
	rule, ok := p.match(principal, category)
	if !ok {
		d.Reason = "no rule matches and the policy has no default rule"
		d.Rule = "(none)"
		return d
	}
	d.Profile, d.Rule = rule.Profile, rule.describe()
	prof, err := p.profile(rule.Profile, 0)
	if err != nil {
		d.Reason = err.Error()
		return d
	}
	switch {
	case !opAllowed(prof.Ops, op):
		d.Reason = fmt.Sprintf("profile %s does not allow %s", rule.Profile, op)
	case len(prof.Types) > 0 && typ != "" && !contains(prof.Types, typ):
		d.Reason = fmt.Sprintf("profile %s does not allow type %s", rule.Profile, typ)
	case len(prof.Categories) > 0 && category != "" && !underAny(category, prof.Categories):
		d.Reason = fmt.Sprintf("profile %s does not allow category %s", rule.Profile, category)
	default:
		d.Allowed = true
		d.Reason = fmt.Sprintf("profile %s allows %s", rule.Profile, op)
	}
	d.NeedsApproval = p.RequireApproval != "" && spec.Risk.AtLeast(p.RequireApproval)
	return d
}

func opAllowed(ops []Op, op Op) bool {
	for _, o := range ops {
		if o == op || o == "*" {
			return true
		}
	}
	return false
}

func underAny(category string, prefixes []string) bool {
	for _, p := range prefixes {
		if category == p || strings.HasPrefix(category, p+".") {
			return true
		}
	}
	return false
}

func (r Rule) describe() string {
	var parts []string
	if r.Principal != "" {
		parts = append(parts, "principal "+r.Principal)
	}
	if r.Category != "" {
		parts = append(parts, "category "+r.Category)
	}
	if len(parts) == 0 {
		parts = append(parts, "default")
	}
	return strings.Join(parts, ", ") + " → " + r.Profile
}

// match finds the most specific rule for principal and category.
func (p *Policy) match(principal, category string) (Rule, bool) {
	var candidates []Rule
	for _, r := range p.Rules {
		if r.Principal != "" && r.Principal != principal {
			continue
		}
		if r.Category != "" && !underAny(category, []string{r.Category}) {
			continue
		}
		candidates = append(candidates, r)
	}
	if len(candidates) == 0 {
		return Rule{}, false
	}
	score := func(r Rule) int {
		s := len(r.Category)
		if r.Principal != "" {
			s += 1 << 16
		}
		return s
	}
	sort.SliceStable(candidates, func(i, j int) bool { return score(candidates[i]) > score(candidates[j]) })
	return candidates[0], true
}

// ChangePolicy is the policy op: it writes .records/policy.yaml and/or
// .records/allowed_signers. The caller has already checked the new files
// parse; the gate and verify check the signer may change them.
func ChangePolicy(files map[string][]byte, ev Evidence) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if err := requireText("evidence.rationale", ev.Rationale, "why who may do what changes"); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	m := &Mutation{Op: OpPolicy, Type: "store", Title: "change " + strings.Join(names, ", "), Message: ev.Note, Files: files}
	m.Trailers = append(baseTrailers(OpPolicy, ev.Agent, ev.SessionID), Trailer{TrailerRationale, ev.Rationale})
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return m, nil
}
