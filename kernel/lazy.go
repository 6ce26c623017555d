package kernel

import "sync"

// lazy is a value built on first use instead of at package init: every
// process (a show, a --version) ran the kernel's init, and most use few of
// its lookup tables and patterns or none. A lazy var is initialised
// statically (build is a function literal capturing nothing), so the
// package's init does no work for it.
type lazy[T any] struct {
	once  sync.Once
	v     T
	build func() T
}

// get is the value, built by the first call.
func (l *lazy[T]) get() T {
	l.once.Do(func() { l.v = l.build() })
	return l.v
}
