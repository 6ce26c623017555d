//go:build unix

package testenv

import (
	"runtime"
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
