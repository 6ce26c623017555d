package cmdutil

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the collector's GC percent without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TuneGC holds collections off until the first one; from then on the
// percent a command preferred applies, whether it asked before or after.
// Not parallel: it sets the process's collector.
func TestPreferGCPercentAppliesFromTheFirstCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer func() {
		gc.mu.Lock()
		gc.tuned = false
		gc.mu.Unlock()
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}()
	TuneGC()
	if p := gcPercent(); p != -1 {
		t.Fatalf("before the first collection: GC percent %d, want -1", p)
	}
	PreferGCPercent(50)
	if p := gcPercent(); p != -1 {
		t.Fatalf("a preference before the first collection applied early: %d", p)
	}
	settled := func() bool {
		gc.mu.Lock()
		defer gc.mu.Unlock()
		return gc.settled
	}
	for deadline := time.Now().Add(5 * time.Second); !settled(); {
		if time.Now().After(deadline) {
			t.Fatal("the first collection's finalizer never ran")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p != 50 {
		t.Fatalf("after the first collection: GC percent %d, want the preferred 50", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("memory limit %d after the first collection, want none", l)
	}
	PreferGCPercent(70)
	if p := gcPercent(); p != 70 {
		t.Fatalf("a preference after the first collection: GC percent %d, want 70", p)
	}
}

// Where the environment sets the collector (or TuneGC never ran, as in
// the in-process command tests), a command's preference changes nothing.
func TestPreferGCPercentLeavesTheEnvironmentsSettings(t *testing.T) {
	t.Setenv("GOGC", "80")
	before := gcPercent()
	TuneGC()
	PreferGCPercent(50)
	if p := gcPercent(); p != before {
		t.Fatalf("GOGC set: GC percent moved from %d to %d", before, p)
	}
}
