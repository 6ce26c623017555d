package service

import (
	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// Extension bindings (kernel/bindings.go): the bind op, what a run resolves,
// and what inspect --bindings shows.

// BindOptions are a run's per-call binding choices: slot → implementation
// overrides (--bind), slots whose implementation failed and fall back to
// the default explicitly (--fallback), and a commit whose manifest to
// resume with exactly (--bindings-from).
type BindOptions struct {
	Flags    map[string]string
	Fallback []string
	From     string
}

// SetBindings is the bind op: .records/bindings.yaml becomes data, refused
// when it binds an incompatible implementation.
func (s *Service) SetBindings(data []byte, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	return s.write(kernel.BindingsPath, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.ChangeBindings(v, data, ev)
	})
}

// underBindings wraps an op so that its commit carries the binding
// manifest resolved on the same tip the op is decided on (none when the
// store has no bindings file and no binding was asked for).
func (s *Service) underBindings(opts BindOptions, decide kernel.DecideFunc) (kernel.DecideFunc, error) {
	var resumed []kernel.BindingUse
	if opts.From != "" {
		m, err := s.ManifestAt(opts.From)
		if err != nil {
			return nil, kernel.AboutField(err, "bindings_from")
		}
		resumed = m.Manifest
		if len(resumed) == 0 {
			return nil, kernel.Errorf(kernel.CodeNotFound, "commit %s carries no binding manifest to resume with", opts.From).WithExtra("flag", "--bindings-from")
		}
		opts.From = m.Commit
	}
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		snap, err := snapshotOf(v)
		if err != nil {
			return nil, err
		}
		manifest, err := resolveAt(snap, opts, resumed)
		if err != nil {
			return nil, err
		}
		m, err := decide(v, env)
		return kernel.WithBindings(m, manifest), err
	}, nil
}

func resolveAt(v kernel.Snapshot, opts BindOptions, resumed []kernel.BindingUse) ([]kernel.BindingUse, error) {
	b, err := bindingsAt(v)
	if err != nil {
		return nil, err
	}
	if b == nil {
		if len(opts.Flags) > 0 || len(opts.Fallback) > 0 || len(resumed) > 0 {
			return nil, noSlots()
		}
		return nil, nil
	}
	return kernel.Resolve(b, v, opts.Flags, opts.Fallback, resumed, opts.From)
}

// bindingsAt reads the bindings file of a snapshot; nil when there is none.
func bindingsAt(v kernel.Snapshot) (*kernel.Bindings, error) {
	data, err := v.ReadFile(kernel.BindingsPath)
	if err != nil || data == nil {
		return nil, err
	}
	return kernel.ParseBindings(data)
}

// noSlots refuses a binding asked for in a store that declares no slots.
func noSlots() error {
	return kernel.Errorf(kernel.CodeUsage, "--bind names a slot, and this store declares no extension slots (%s): git records bindings set FILE first", kernel.BindingsPath).WithExtra("flag", "--bind")
}

// SlotView is one slot as inspect --bindings shows it: its declaration,
// the binding active now and where it came from, and the project binding
// and default it would fall back to.
type SlotView struct {
	Name string `json:"slot"`
	kernel.Slot
	Active     kernel.BindingUse `json:"active"`
	Overridden bool              `json:"overridden"` // not the default
}

// BindingsView is what inspect --bindings prints.
type BindingsView struct {
	Path     string              `json:"path"`
	Declared bool                `json:"declared"` // the store has a bindings file
	Slots    []SlotView          `json:"slots"`
	Commit   string              `json:"commit,omitempty"`   // with --at: the commit whose manifest this is
	Manifest []kernel.BindingUse `json:"manifest,omitempty"` // with --at
}

// InspectBindings shows the slots, their contracts and the bindings a run
// would get now with opts.
func (s *Service) InspectBindings(opts BindOptions) (*BindingsView, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	out := &BindingsView{Path: kernel.BindingsPath, Slots: []SlotView{}}
	// The commit to resume from is read first: one that does not resolve
	// is refused even where no slots are declared.
	var resumed []kernel.BindingUse
	if opts.From != "" {
		m, err := s.ManifestAt(opts.From)
		if err != nil {
			return nil, kernel.AboutField(err, "bindings_from")
		}
		resumed, opts.From = m.Manifest, m.Commit
	}
	b, err := bindingsAt(v.snap)
	if err != nil {
		return nil, err
	}
	if b == nil {
		if len(opts.Flags) > 0 || len(opts.Fallback) > 0 {
			return nil, noSlots() // as the op it previews would be
		}
		return out, nil
	}
	out.Declared = true
	manifest, err := kernel.Resolve(b, v.snap, opts.Flags, opts.Fallback, resumed, opts.From)
	if err != nil {
		return nil, err
	}
	for i, name := range b.SlotNames() {
		out.Slots = append(out.Slots, SlotView{Name: name, Slot: b.Slots[name], Active: manifest[i], Overridden: manifest[i].Source != kernel.SourceDefault})
	}
	return out, nil
}

// Manifest is the binding manifest one commit carries.
type Manifest struct {
	Commit   string              `json:"commit"`
	Manifest []kernel.BindingUse `json:"manifest"`
}

// ManifestAt reads the binding manifest of commit rev: what produced it,
// and what a resumed run binds to.
func (s *Service) ManifestAt(rev string) (*Manifest, error) {
	g, err := s.needsGit("a commit's binding manifest")
	if err != nil {
		return nil, err
	}
	h, err := g.ResolveRev(rev)
	if err != nil {
		return nil, err
	}
	c, err := g.Commit(h)
	if err != nil {
		return nil, err
	}
	msg, err := gitstore.DecodeMessage(c.Message)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInvalidRecord, err, "commit %s", h)
	}
	m, err := kernel.Manifest(msg.Trailers)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInvalidRecord, err, "commit %s", h)
	}
	if m == nil {
		m = []kernel.BindingUse{}
	}
	return &Manifest{Commit: h.String(), Manifest: m}, nil
}
