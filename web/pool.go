package web

import (
	"context"
	"runtime"
	"sync"

	"github.com/git-records/git-records/service"
)

// services lends each request a service of its own: a Service (its
// store's caches and readers) is not safe for concurrent use, so requests
// sharing one would wait for each other, and one slow page would hold up
// every other. Services are opened over the same store as requests come
// in at once, up to a bound, and kept for the next requests.
type services struct {
	idle chan *service.Service
	open func() (*service.Service, error) // nil: the first service is the only one

	mu     sync.Mutex
	opened []*service.Service
}

// maxServices bounds the requests served at once, and so the stores open:
// past it a request waits for one to be done.
func maxServices() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

func newServices(first *service.Service, open func() (*service.Service, error)) *services {
	n := maxServices()
	if open == nil {
		n = 1
	}
	p := &services{idle: make(chan *service.Service, n), open: open, opened: []*service.Service{first}}
	p.idle <- first
	return p
}

// get is an idle service, one newly opened while fewer than the bound
// are, or the first to be put back; it fails when ctx ends first (the
// client went away).
func (p *services) get(ctx context.Context) (*service.Service, error) {
	select {
	case s := <-p.idle:
		return s, nil
	default:
	}
	if s, ok, err := p.openOne(); ok || err != nil {
		return s, err
	}
	select {
	case s := <-p.idle:
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// openOne opens a service when fewer than the bound are open.
func (p *services) openOne() (*service.Service, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open == nil || len(p.opened) >= cap(p.idle) {
		return nil, false, nil
	}
	s, err := p.open()
	if err != nil {
		return nil, false, err
	}
	p.opened = append(p.opened, s)
	return s, true, nil
}

// put gives s back for the next request.
func (p *services) put(s *service.Service) { p.idle <- s }

// close closes the stores of the services opened here (not the first:
// its opener closes it).
func (p *services) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, s := range p.opened[1:] {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	p.opened = p.opened[:1]
	return first
}
