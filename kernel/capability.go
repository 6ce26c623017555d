package kernel

// Capability resolution (Agent Kit, Capability resolution): what this store
// offers, and for each capability whether it can be used here and now, why
// not, and what to do about it. The descriptors and the rules are here and
// pure; the CLI gathers the facts (a repository? a branch? a key? what does
// the policy say about this principal?) and hands them over.

// CapabilityState is how a capability resolves.
type CapabilityState string

const (
	CapabilityAvailable    CapabilityState = "available"
	CapabilityBlocked      CapabilityState = "blocked"      // a requirement is missing here; the recovery provides it
	CapabilityUnconfigured CapabilityState = "unconfigured" // the store is not set up
	CapabilityUnsupported  CapabilityState = "unsupported"  // git-records does not offer it
	CapabilityStale        CapabilityState = "stale"        // usable, on data known to be behind its upstream
	CapabilityDenied       CapabilityState = "denied"       // the policy forbids it for this principal
	CapabilityErrored      CapabilityState = "errored"      // resolving it failed
)

// ExtensionName is how git-records names itself to the Agent Kit.
const ExtensionName = "git-records"

// Capability names (Agent Kit, Primitive capabilities).
const (
	CapRecordRead         = "record.read"
	CapRecordWrite        = "record.write"
	CapRecordQuery        = "record.query"
	CapRelationRead       = "relation.read"
	CapRelationWrite      = "relation.write"
	CapRelationQuery      = "relation.query"
	CapObserveRecords     = "observe.records"
	CapExecuteAction      = "execute.action"
	CapTransformNormalize = "transform.normalize"
	CapSubscribeChanges   = "subscribe.changes"
)

// ActionVerifyRecord re-derives records' freshness against the working tree
// and writes changed verdicts back (DESIGN, Freshness).
const ActionVerifyRecord = "verify_record"

// Requirements a capability may list.
const (
	ReqRepository    = "git_repository"
	ReqRecordsBranch = "records_branch"
	ReqSigningKey    = "signing_key"    // a key git-records can sign with
	ReqAllowedSigner = "allowed_signer" // that key listed in .records/allowed_signers
	ReqPolicy        = "policy_allows"  // the policy lets this principal run the op
	ReqWorktree      = "worktree"       // a working tree of the code the records speak about
	ReqApproval      = "explicit_approval"
)

// CapabilityDescriptor is what git-records offers, whatever the state.
type CapabilityDescriptor struct {
	Capability string
	Action     string
	Risk       Risk
	Op         Op     // the op a write runs (its policy decision decides denied); "" for reads
	Worktree   bool   // needs a working tree of the code
	Usage      string // how to invoke it
	Accepts    []string
	Emits      []string
	Mode       string // how subscribe.changes delivers: "push" (watch streams each commit as it lands)
	Supported  bool
	Detail     string
}

// CapabilityDescriptors lists every capability, in the order they are reported.
var CapabilityDescriptors = []CapabilityDescriptor{
	{Capability: CapRecordRead, Risk: RiskReadOnly, Supported: true,
		Usage: "git records show <handle> --json; contract get"},
	{Capability: CapRecordWrite, Risk: RiskWritesLocalState, Op: OpCreate, Supported: true,
		Usage: "git records create|update|propose|apply|reject|supersede|retire --json; contract create…"},
	{Capability: CapRecordQuery, Risk: RiskReadOnly, Supported: true,
		Usage: "git records list [--type] [--category [--prefix]] [--tag] [--live] --json; contract list-by-category, list-by-type"},
	{Capability: CapRelationRead, Risk: RiskReadOnly, Supported: true,
		Usage: "git records links <handle> --json; contract get-links"},
	{Capability: CapRelationWrite, Risk: RiskWritesLocalState, Op: OpLink, Supported: true,
		Usage: "git records link <handle> --to TARGET --kind K; create --type relation"},
	{Capability: CapRelationQuery, Risk: RiskReadOnly, Supported: true,
		Usage: "git records list --kind relation --json; git records links <handle> --json"},
	{Capability: CapObserveRecords, Risk: RiskReadOnly, Supported: true,
		Usage:  "git records list --live --json (normalized records of the records branch)",
		Detail: "the records branch is the observed source: its records come out normalized (kind, role, authority, source)"},
	{Capability: CapExecuteAction, Action: ActionVerifyRecord, Risk: RiskWritesLocalState, Op: OpVerify, Worktree: true, Supported: true,
		Usage:   "git records fresh [<handle>…] --record --agent A --json",
		Accepts: []string{"entity/claim", "entity/decision", "entity/fact"},
		Emits:   []string{"entity/claim"},
		Detail:  "re-derives freshness from the scoped files' content in the working tree and writes changed verdicts back in one verify commit"},
	{Capability: CapTransformNormalize, Risk: RiskReadOnly,
		Detail: "git-records stores records that are already normalized; normalizing a native payload is the source extension's job"},
	{Capability: CapSubscribeChanges, Risk: RiskReadOnly, Mode: "push", Supported: true,
		Usage:  "git records watch --format jsonl [--since <last commit printed>]",
		Detail: "push: watch prints one JSON object per commit as it lands on the branch (op, records, agent, signer, signature), woken by filesystem notification with a polling fallback; every change is a commit on one ref, so a reader that resumes with --since the last commit it printed misses and repeats nothing"},
}

// CapabilityFacts are what the CLI found out about where it runs.
type CapabilityFacts struct {
	StoreErr     Code   // why no store could be opened ("" when one was)
	StoreMessage string // its message
	AutoInit     bool   // a standalone store (--store DIR): set up on first use, key included
	HasBranch    bool   // the records branch exists
	Ref          string // the records branch

	SignerErr     Code   // why there is nothing to sign with ("" when there is)
	SignerMessage string // its message
	SignerFormat  string // ssh, openpgp, x509
	SignerListed  bool   // the signing key is in .records/allowed_signers at the tip
	Principal     string // who the store signs as

	PolicyErr string          // .records/policy.yaml does not parse
	Decisions map[Op]Decision // the policy's decision for Principal, per write op
	Upstream  string          // the remote-tracking branch the records branch follows ("" when none)
	Behind    int             // commits Upstream has that the branch lacks, as of the last fetch
	InWork    bool            // the working directory is inside a git working tree
}

// CapabilityResolution is one capability (or action) resolved, in the
// Agent Kit's shape.
type CapabilityResolution struct {
	Extension         string          `json:"extension"`
	Capability        string          `json:"capability"`
	Action            string          `json:"action,omitempty"`
	State             CapabilityState `json:"state"`
	Reason            string          `json:"reason,omitempty"`
	Requirements      []string        `json:"requirements"`
	SuggestedRecovery string          `json:"suggestedRecovery,omitempty"`
	Risk              Risk            `json:"risk"`
	Rule              string          `json:"rule,omitempty"` // the policy rule, when denied
	Accepts           []string        `json:"accepts,omitempty"`
	Emits             []string        `json:"emits,omitempty"`
	Mode              string          `json:"mode,omitempty"` // "push" for subscribe.changes
	Usage             string          `json:"usage,omitempty"`
	Detail            string          `json:"detail,omitempty"`
}

// ResolveCapabilities applies the rules to the facts, one resolution per
// descriptor. The first rule that applies decides; its order is the order
// a user has to fix things in (a repository, the branch, a key, the key
// listed, the policy, the working tree).
func ResolveCapabilities(f CapabilityFacts) []CapabilityResolution {
	out := make([]CapabilityResolution, 0, len(CapabilityDescriptors))
	for _, d := range CapabilityDescriptors {
		out = append(out, resolveCapability(d, f))
	}
	return out
}

func resolveCapability(d CapabilityDescriptor, f CapabilityFacts) CapabilityResolution {
	r := CapabilityResolution{Extension: ExtensionName, Capability: d.Capability, Action: d.Action, Risk: d.Risk,
		Accepts: d.Accepts, Emits: d.Emits, Usage: d.Usage, Detail: d.Detail, Requirements: requirementsOf(d), Mode: d.Mode}
	set := func(state CapabilityState, reason, recovery string) CapabilityResolution {
		r.State, r.Reason, r.SuggestedRecovery = state, reason, recovery
		return r
	}
	writes := d.Op != ""
	switch {
	case !d.Supported:
		return set(CapabilityUnsupported, "not_provided", "use the extension that owns the source system; store its normalized records with record.write")
	case f.StoreErr == CodeNotAStore:
		return set(CapabilityUnconfigured, "no_repository", "run inside a git repository (git init), or pass --store DIR")
	case f.StoreErr != "":
		return set(CapabilityErrored, "store_unreadable", f.StoreMessage)
	case !f.HasBranch && !f.AutoInit:
		recovery := "git records init"
		switch {
		case f.Upstream != "":
			recovery = "git records pull (" + f.Upstream + " has the records)"
		case f.SignerErr != "":
			recovery = "git records init --generate-key"
		}
		return set(CapabilityUnconfigured, "no_records_branch", recovery)
	}
	if writes {
		// A standalone store makes its own key on first use.
		selfKeyed := f.AutoInit && !f.HasBranch
		switch {
		case f.SignerErr != "" && !selfKeyed:
			return set(CapabilityBlocked, "no_signing_key", "run git records init --generate-key (or set user.signingkey with gpg.format=ssh)")
		case f.SignerFormat != "" && f.SignerFormat != "ssh" && !selfKeyed:
			return set(CapabilityBlocked, "signer_not_ssh", "sign records with an SSH key: git records verifies SSH signatures in-process (git config records.signingKey <key>, or git records init --generate-key in a fresh clone)")
		case f.HasBranch && !f.SignerListed:
			return set(CapabilityBlocked, "signer_not_allowed", "have a maintainer allow your key: git records signers add "+principalOr(f.Principal)+" <public key> --rationale R --agent A")
		case f.PolicyErr != "":
			return set(CapabilityErrored, "policy_invalid", "repair .records/policy.yaml in a policy commit: "+f.PolicyErr)
		}
		if dec, ok := f.Decisions[d.Op]; ok && !dec.Allowed {
			r.Rule = dec.Rule
			return set(CapabilityDenied, "policy_denied", "ask a maintainer to grant "+string(d.Op)+" to "+principalOr(f.Principal)+" in .records/policy.yaml ("+dec.Reason+"; git records policy check explains)")
		} else if ok && dec.NeedsApproval {
			r.Requirements = append(r.Requirements, ReqApproval)
		}
	}
	switch {
	case d.Worktree && !f.InWork:
		return set(CapabilityBlocked, "no_worktree", "run it inside a working tree of the code the records are scoped to (cd into the repository checkout)")
	case f.Behind > 0 && !writes && f.HasBranch:
		return set(CapabilityStale, "behind_upstream", "git records pull (or git fetch, then git records merge "+f.Upstream+")")
	}
	return set(CapabilityAvailable, "", "")
}

func requirementsOf(d CapabilityDescriptor) []string {
	if !d.Supported {
		return []string{}
	}
	req := []string{ReqRepository, ReqRecordsBranch}
	if d.Op != "" {
		req = append(req, ReqSigningKey, ReqAllowedSigner, ReqPolicy)
	}
	if d.Worktree {
		req = append(req, ReqWorktree)
	}
	return req
}

func principalOr(p string) string {
	if p == "" {
		return "<principal>"
	}
	return p
}
