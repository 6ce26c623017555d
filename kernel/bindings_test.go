package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// bindingWorld: slot final_verification (routine or workflow; needs plan
// and criteria, produces findings.md) with three implementations.
func bindingWorld(t *testing.T) (*memView, *kernel.Bindings) {
	v := newMemView()
	impl := func(typ, id string, accepts, produces []string) {
		in := kernel.CreateInput{ID: id, Type: typ, Title: id, Body: "b", Category: "kit", Provenance: kernel.Provenance{Agent: "m"}}
		if accepts != nil || produces != nil {
			in.Contract = &kernel.ExtensionContract{Accepts: accepts, Produces: produces}
		}
		m, err := kernel.Create(v, in, execEnv(alice))
		require.NoError(t, err)
		v.commit(m)
	}
	impl(kernel.TypeRoutine, "default-routine", []string{"plan", "criteria"}, []string{"findings.md"})
	impl(kernel.TypeWorkflow, "team-workflow", []string{"plan", "criteria", "invariants"}, []string{"findings.md", "extra.md"})
	impl(kernel.TypeRoutine, "lazy-routine", []string{"plan"}, []string{"findings.md"})
	impl(kernel.TypeExtension, "an-extension", []string{"plan", "criteria"}, []string{"findings.md"})
	impl(kernel.TypeRoutine, "no-contract", nil, nil)
	b, err := kernel.ParseBindings([]byte(`version: 1
slots:
  final_verification:
    purpose: verify
    default: default-routine
    accepted_kinds: [routine, workflow]
    required_inputs: [plan, criteria]
    required_outputs: [findings.md]
bindings:
  final_verification: team-workflow
`))
	require.NoError(t, err)
	return v, b
}

func TestCompatibilityIsTheContract(t *testing.T) {
	v, b := bindingWorld(t)
	slot := b.Slots["final_verification"]
	for id, why := range map[string]string{
		"default-routine": "",
		"team-workflow":   "",
		"lazy-routine":    "does not accept the required inputs criteria",
		"an-extension":    "is a extension and the slot accepts routine, workflow",
		"no-contract":     "declares no extension_contract",
	} {
		r, _ := v.Record(id)
		if why == "" {
			assert.Empty(t, kernel.Compatible(slot, r), id)
		} else {
			assert.Contains(t, kernel.Compatible(slot, r), why, id)
		}
	}
	assert.Empty(t, kernel.CheckBindings(b, v))

	for name, file := range map[string]string{
		"an incompatible project binding": "version: 1\nslots:\n  s:\n    default: default-routine\n    accepted_kinds: [routine]\n    required_inputs: [plan, criteria]\nbindings:\n  s: lazy-routine\n",
		"an incompatible default":         "version: 1\nslots:\n  s:\n    default: no-contract\n    accepted_kinds: [routine]\n",
		"a binding of no slot":            "version: 1\nslots:\n  s:\n    default: default-routine\n    accepted_kinds: [routine]\nbindings:\n  other: default-routine\n",
		"an unknown kind":                 "version: 1\nslots:\n  s:\n    default: default-routine\n    accepted_kinds: [routine, script]\n",
		"a missing implementation":        "version: 1\nslots:\n  s:\n    default: nowhere\n    accepted_kinds: [routine]\n",
	} {
		t.Run(name, func(t *testing.T) {
			m, err := kernel.ChangeBindings(v, []byte(file), kernel.Evidence{Agent: "m", Rationale: "r"})
			rejects(t, kernel.CodeInvalidRecord, m, err)
		})
	}
	_, err := kernel.ParseBindings([]byte("version: 1\nslots: {}\nbogus: 1\n"))
	assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "unknown keys are refused")
}

func TestResolutionOrderAndManifest(t *testing.T) {
	v, b := bindingWorld(t)
	resolve := func(flags map[string]string, fallback []string) kernel.BindingUse {
		t.Helper()
		m, err := kernel.Resolve(b, v, flags, fallback, nil, "")
		require.NoError(t, err)
		require.Len(t, m, 1)
		return m[0]
	}
	project := resolve(nil, nil)
	assert.Equal(t, "team-workflow", project.ResolvedTo)
	assert.Equal(t, kernel.SourceProject, project.Source)
	assert.Equal(t, "workflow", project.Kind)
	r, _ := v.Record("team-workflow")
	assert.Equal(t, kernel.RecordDigest(r), project.Hash)

	flag := resolve(map[string]string{"final_verification": "default-routine"}, nil)
	assert.Equal(t, kernel.SourceFlag, flag.Source, "a per-call flag wins over the project file")
	_, err := kernel.Resolve(b, v, map[string]string{"final_verification": "lazy-routine"}, nil, nil, "")
	assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "a flag is held to the contract too")

	delete(b.Bind, "final_verification")
	assert.Equal(t, kernel.SourceDefault, resolve(nil, nil).Source, "then the slot's default")
	b.Bind["final_verification"] = "team-workflow"

	fb := resolve(nil, []string{"final_verification"})
	assert.Equal(t, kernel.BindingUse{Slot: "final_verification", ResolvedTo: "default-routine", Kind: "routine", Source: kernel.SourceFallback,
		Hash: fb.Hash, Failed: "team-workflow"}, fb, "an explicit fallback names what failed")

	// The manifest travels as trailers and reads back; a fallback lands in
	// the provenance of what the commit creates.
	m, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeRun, Title: "R", Session: "s", Agent: "a"}, execEnv(alice))
	require.NoError(t, err)
	m = kernel.WithBindings(m, []kernel.BindingUse{fb})
	back, err := kernel.Manifest(m.Trailers)
	require.NoError(t, err)
	assert.Equal(t, []kernel.BindingUse{fb}, back)
	assert.Equal(t, []string{"final_verification: fallback-to-default (team-workflow failed)"}, m.Writes[0].Provenance.Fallbacks)
	changes, err := kernel.MutationChanges(v, m)
	require.NoError(t, err)
	assert.Empty(t, kernel.CheckManifest(m.Op, m.Trailers, changes, b, v))

	// A resumed run gets exactly the manifest of the commit it names, and
	// refuses when the implementation changed since.
	pinned, err := kernel.Resolve(b, v, nil, nil, []kernel.BindingUse{fb}, "abc123")
	require.NoError(t, err)
	assert.Equal(t, "default-routine", pinned[0].ResolvedTo)
	assert.Equal(t, kernel.SourceResumed, pinned[0].Source)
	stale := fb
	stale.Hash = "sha256:00"
	_, err = kernel.Resolve(b, v, nil, nil, []kernel.BindingUse{stale}, "abc123")
	assert.Equal(t, kernel.CodeConflict, kernel.CodeOf(err))
}

// TestForgedManifests: a manifest written by hand is judged against the
// parent's bindings and implementations.
func TestForgedManifests(t *testing.T) {
	v, b := bindingWorld(t)
	good, err := kernel.Resolve(b, v, nil, nil, nil, "")
	require.NoError(t, err)
	judge := func(edit func(u *kernel.BindingUse), provenance bool) []kernel.Violation {
		m, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeRun, Title: "R", Session: "s", Agent: "a"}, execEnv(alice))
		require.NoError(t, err)
		u := good[0]
		edit(&u)
		m.Trailers = append(m.Trailers, u.Trailer())
		if provenance {
			m = kernel.WithBindings(m, nil)
		}
		changes, err := kernel.MutationChanges(v, m)
		require.NoError(t, err)
		return kernel.CheckManifest(m.Op, m.Trailers, changes, b, v)
	}
	assert.Empty(t, judge(func(*kernel.BindingUse) {}, false))
	for name, edit := range map[string]func(u *kernel.BindingUse){
		"a project binding the file does not make": func(u *kernel.BindingUse) {
			r, _ := v.Record("default-routine")
			u.ResolvedTo, u.Kind, u.Hash = "default-routine", "routine", kernel.RecordDigest(r)
		},
		"another content hash":         func(u *kernel.BindingUse) { u.Hash = "sha256:00" },
		"an incompatible flag binding": func(u *kernel.BindingUse) { u.ResolvedTo, u.Source = "lazy-routine", kernel.SourceFlag },
		"an undeclared slot":           func(u *kernel.BindingUse) { u.Slot = "design_review" },
		"an unknown source":            func(u *kernel.BindingUse) { u.Source = "vibes" },
		"a fallback to what is no default": func(u *kernel.BindingUse) {
			u.Source, u.Failed = kernel.SourceFallback, "default-routine"
		},
	} {
		t.Run(name, func(t *testing.T) {
			vs := judge(edit, false)
			require.NotEmpty(t, vs)
			assert.Equal(t, kernel.RuleBindings, vs[0].Rule)
		})
	}
	t.Run("a fallback its record's provenance does not keep", func(t *testing.T) {
		vs := judge(func(u *kernel.BindingUse) {
			r, _ := v.Record("default-routine")
			u.ResolvedTo, u.Kind, u.Hash, u.Source, u.Failed = "default-routine", "routine", kernel.RecordDigest(r), kernel.SourceFallback, "team-workflow"
		}, false)
		require.Len(t, vs, 1)
		assert.Contains(t, vs[0].Message, "provenance does not record")
	})
	t.Run("no manifest under a store without bindings", func(t *testing.T) {
		m, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeRun, Title: "R", Session: "s", Agent: "a"}, execEnv(alice))
		require.NoError(t, err)
		m.Trailers = append(m.Trailers, good[0].Trailer())
		vs := kernel.CheckManifest(m.Op, m.Trailers, nil, nil, v)
		require.Len(t, vs, 1)
	})
}
