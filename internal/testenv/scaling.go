//go:build unix

package testenv

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"
)

// RequireLinear fails t unless large, which does ten times the work of
// small, takes less than maxRatio times as long: a scaling test, not a
// wall-clock number, so that it holds on a slow machine and catches a
// quadratic cost (a ratio near 100). Time is process CPU time, small and
// large run in turn and the least of several runs counts, so a busy machine
// slows neither more than the other; an unlucky attempt is retried, which a
// quadratic cost never passes.
func RequireLinear(t testing.TB, maxRatio float64, small, large func()) {
	t.Helper()
	var s, l time.Duration
	for range 3 {
		s, l = cpuTimes(t, small, large)
		t.Logf("small: %v, large: %v (x%.1f)", s, l, float64(l)/float64(max(s, 1)))
		if float64(l) < maxRatio*float64(s) {
			return
		}
	}
	t.Fatalf("ten times the work took %v against %v: more than %g times as long, the cost is not linear", l, s, maxRatio)
}

// DoublingRatio is the most that twice the input may cost against once
// (RequireDoubling): linear work doubles, quadratic work quadruples, and
// the margin between takes a busy machine's noise.
const DoublingRatio = 2.5

// RequireDoubling fails t unless large, which reads twice the input of
// small, takes at most DoublingRatio times small's CPU time. Each side runs
// as many times as small needs to take a measurable time (minTimed), so
// that a fast path is measured as well as a slow one, and an unlucky
// attempt is retried as in RequireLinear.
func RequireDoubling(t testing.TB, small, large func()) {
	t.Helper()
	// Collections paced to a small heap come at uneven points of runs this
	// short and blur the ratio; they are not the cost measured here.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	reps := 1
	for took := time.Duration(0); reps < 1<<16; reps *= 2 {
		before := cpuUsed(t)
		for range reps {
			small()
		}
		if took = cpuUsed(t) - before; took >= minTimed {
			break
		}
	}
	repeat := func(f func()) func() {
		return func() {
			for range reps {
				f()
			}
		}
	}
	var s, l time.Duration
	for range 3 {
		s, l = cpuTimes(t, repeat(small), repeat(large))
		t.Logf("%d runs each: small %v, large %v (x%.2f)", reps, s, l, float64(l)/float64(max(s, 1)))
		if float64(l) <= DoublingRatio*float64(s) {
			return
		}
	}
	t.Fatalf("twice the input took %v against %v: more than %g times as long, the cost is not linear", l, s, DoublingRatio)
}

// minTimed is the CPU time RequireDoubling measures at least: well above
// the clock's resolution and a scheduler tick.
const minTimed = 20 * time.Millisecond

func cpuTimes(t testing.TB, small, large func()) (time.Duration, time.Duration) {
	cpu := func(f func()) time.Duration {
		runtime.GC() // so that one run does not pay for another's garbage
		before := cpuUsed(t)
		f()
		return cpuUsed(t) - before
	}
	bestSmall, bestLarge := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for range 3 {
		bestSmall = min(bestSmall, cpu(small))
		bestLarge = min(bestLarge, cpu(large))
	}
	return bestSmall, bestLarge
}

func cpuUsed(t testing.TB) time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
