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
// that a fast path is measured as well as a slow one; the least of three
// such measures counts, and an unlucky attempt is retried as in
// RequireLinear. The garbage collector runs before each side's runs, not
// during them: when a collection falls depends on the heap's size, which
// blurs a ratio of runs this short, and its cost is not the one measured
// here. (The runs' garbage is bounded by what minTimed allows to allocate.)
func RequireDoubling(t testing.TB, small, large func()) {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	timed := func(f func(), reps int) time.Duration {
		runtime.GC()
		before := cpuUsed(t)
		for range reps {
			f()
		}
		return cpuUsed(t) - before
	}
	reps := 1
	for ; reps < 1<<12 && timed(small, reps) < minTimed; reps *= 2 {
	}
	timed(large, reps) // grows the heap to what the measured runs use
	var s, l time.Duration
	for range 3 {
		s, l = time.Duration(1<<63-1), time.Duration(1<<63-1)
		for range 3 {
			s = min(s, timed(small, reps))
			l = min(l, timed(large, reps))
		}
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
