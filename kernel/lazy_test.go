package kernel

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lazy value is built once, by the first get, however many goroutines
// ask at once, and every get returns that one value.
func TestLazyBuildsOnce(t *testing.T) {
	var builds atomic.Int32
	l := lazy[map[string]int]{build: func() map[string]int {
		builds.Add(1)
		return map[string]int{"a": 1}
	}}
	assert.Zero(t, builds.Load(), "built before the first get")
	got := make([]map[string]int, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = l.get()
		}()
	}
	wg.Wait()
	require.Equal(t, int32(1), builds.Load())
	for _, m := range got {
		assert.Equal(t, reflect.ValueOf(got[0]).Pointer(), reflect.ValueOf(m).Pointer(), "two gets returned different maps")
	}
	assert.Equal(t, 1, l.get()["a"])
}

// The tables the kernel builds on first use hold what they held as
// package-level maps: a few entries checked against the rules they carry.
func TestLazyTables(t *testing.T) {
	assert.Equal(t, RiskExternalMutation, OpSpecs()[OpApply].Risk)
	assert.Equal(t, []string{TrailerProposer, TrailerReason}, OpSpecs()[OpReject].RequiredTrailers)
	assert.Equal(t, []ExecState{ExecCompleted, ExecFailed}, ClosingStates(OpClose))
	assert.True(t, CanTransition(StatusActive, StatusRetired))
	assert.False(t, CanTransition(StatusRetired, StatusActive))
	assert.True(t, RiskDestructive.AtLeast(RiskExternalMutation))
	assert.Equal(t, "workflow", ImplementationKind(TypeWorkflow))
	assert.True(t, typePattern.get().MatchString("review.finding"))
	assert.Same(t, typePattern.get(), typePattern.get(), "a pattern compiled twice")
}
