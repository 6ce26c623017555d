package memstore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/kernel/memstore"
	"github.com/git-records/git-records/kernel/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kernel.Store { return memstore.New(memstore.Options{}) })
}

// Writers racing in goroutines: each decision reads what it changes from the
// view it is given, so every one lands once, and of the writers claiming one
// alias exactly one wins.
func TestConcurrentWriters(t *testing.T) {
	s := memstore.New(memstore.Options{})
	const id, writers = "target00000000", 8
	create := func(id string, aliases ...string) kernel.DecideFunc {
		in := kernel.CreateInput{ID: id, Type: "concept", Title: id, Body: "b", Category: "eng", Aliases: aliases, Provenance: kernel.Provenance{Agent: "t"}}
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }
	}
	if _, err := s.Write(create(id)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Write(create(fmt.Sprintf("claimant%08d", i), "contested"))
		}()
		go func() {
			defer wg.Done()
			_, err := s.Write(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				r, err := v.Record(id)
				if err != nil {
					return nil, err
				}
				tags := append(r.Tags, fmt.Sprintf("tag-%d", i))
				return kernel.Update(v, id, kernel.UpdateFields{Tags: &tags}, kernel.Evidence{Agent: "t"}, env)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !kernel.IsCode(err, kernel.CodeSlugConflict):
			t.Errorf("a losing claimant got %v, want SLUG_CONFLICT", err)
		}
	}
	if won != 1 {
		t.Errorf("%d claimants won the alias, want exactly 1", won)
	}
	v, _ := s.Snapshot()
	r, _ := v.Record(id)
	if len(r.Tags) != writers {
		t.Errorf("tags %v: a racing update was lost", r.Tags)
	}
}
