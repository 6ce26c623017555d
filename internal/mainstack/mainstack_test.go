package mainstack

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stackInuse is the memory the runtime holds in goroutine stacks.
func stackInuse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.StackInuse
}

// recurse uses about depth KiB of stack.
//
//go:noinline
func recurse(depth int) byte {
	var pad [1000]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		return pad[0]
	}
	return recurse(depth-1) + pad[depth%len(pad)]
}

// On a fresh goroutine (an 8 KiB stack, as the main goroutine starts
// with), grow grows the stack, and a recursion of about 100 KiB
// afterwards (goldmark's regexp compile goes past 64 KiB) runs without
// growing it again. Were the frame moved to the heap, or too small,
// StackInuse would rise after the recursion. No collection runs in
// between (the test allocates next to nothing), so no stack is shrunk or
// freed under the test.
func TestGrowOnceToFit(t *testing.T) {
	type sample struct{ before, grown, after uint64 }
	done := make(chan sample)
	go func() {
		var s sample
		s.before = stackInuse()
		grow(never)
		s.grown = stackInuse()
		recurse(100)
		s.after = stackInuse()
		done <- s
	}()
	s := <-done
	require.Greater(t, s.grown, s.before, "grow did not grow the stack to hold its frame")
	assert.Equal(t, s.grown, s.after, "a 100 KiB recursion still grew the stack after grow")
}

// Called with write true the frame is real: grow reads its last byte, 0.
func TestGrowWrites(t *testing.T) {
	assert.Equal(t, byte(0), grow(true))
}
