// Package mainstack gives the main goroutine, at once, the stack that the
// package initialisation of git-records grows it to.
//
// Every package init runs on the main goroutine, whose stack starts at
// 8 KiB. goldmark's util init compiles a regular expression with a
// counted repetition ({0,61}) whose compiler recurses deeply, and the
// stack doubles four times on the way (16, 32, 64, 128 KiB). Each
// doubling allocates a fresh stack, copies the used part into it and
// walks every frame to adjust its pointers: about 45 page faults and a
// tenth of a --version's CPU (docs/design.md, the process floor). This
// package's init, which the linker runs before goldmark's and yaml's (Go
// initialises the packages whose imports are ready in import-path order,
// and this one imports nothing), calls a function whose frame is 120 KiB:
// the runtime grows the stack once, straight to 128 KiB, while little of
// it is in use, and the frame itself is never written, so none of its
// pages is touched until a deeper call needs it. Nothing goldmark does
// changes; only the stack it runs on is already there.
//
// The stack stays 128 KiB until a collection shrinks it (cmdutil.TuneGC
// holds collections off until the heap reaches 64 MiB): its pages are
// mapped as they are used, as with any goroutine stack.
package mainstack

// FrameSize is the frame of grow: with the few KiB in use when it runs,
// the runtime doubles the 8 KiB starting stack to 128 KiB to fit it.
const FrameSize = 120 << 10

// never is false; the compiler cannot know it, so grow keeps its frame.
var never bool

func init() { grow(never) }

// grow has a frame of FrameSize bytes. Called with write false it
// returns at once: the runtime has grown the stack to hold the frame on
// entry, and the frame is neither zeroed nor written (Go zeroes buf
// where it is declared, inside the branch).
//
//go:noinline
func grow(write bool) byte {
	if write {
		var buf [FrameSize]byte
		return last(&buf)
	}
	return 0
}

//go:noinline
func last(b *[FrameSize]byte) byte { return b[len(b)-1] }
