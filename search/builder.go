package search

import "io"

// RunBytes is how much document text a Builder indexes in memory before
// it writes what it has as a run, a segment of its own.
var RunBytes = 512 << 10

// Spill keeps a Builder's run (in a file, say) until the Builder is done
// with it, and gives back a reader of its bytes. It is called from the
// Builder's own goroutine, one run at a time.
type Spill func(run []byte) (io.ReaderAt, error)

// Builder indexes any number of documents in bounded memory: it builds a
// segment of each run of RunBytes of their text, hands it to its Spill,
// and Finish merges the runs (as it would merge a base and a delta) into
// the segment Build would make of all the documents. Its documents'
// ids must be distinct.
//
// A run is built on a goroutine of the Builder's own while the caller
// reads the next (a full read of the records decodes on every core, and
// tokenizing is a third of the work): Add waits only while a run is
// still being built when the next is full, so at most two runs of
// documents are held.
type Builder struct {
	store string
	spill Spill
	docs  []*Doc
	text  int

	work chan []*Doc // runs for the goroutine; nil until the first
	done chan struct{}
	runs []mergeInput // written by the goroutine until done is closed
	err  error
}

// NewBuilder starts the segment of store's records.
func NewBuilder(store string, spill Spill) *Builder {
	return &Builder{store: store, spill: spill}
}

// Add indexes d.
func (b *Builder) Add(d *Doc) {
	b.docs = append(b.docs, d)
	b.text += len(d.Body) + len(d.Title) + len(d.ID) + 64
	if b.text >= RunBytes {
		b.send()
	}
}

// send hands the documents held to the goroutine as a run.
func (b *Builder) send() {
	if b.work == nil {
		b.work, b.done = make(chan []*Doc), make(chan struct{})
		go b.buildRuns()
	}
	b.work <- b.docs
	b.docs, b.text = nil, 0
}

func (b *Builder) buildRuns() {
	defer close(b.done)
	for docs := range b.work {
		if b.err != nil {
			continue
		}
		run := Build(b.store, [20]byte{}, docs)
		ra, err := b.spill(run)
		if err != nil {
			b.err = err
			continue
		}
		b.runs = append(b.runs, mergeInput{ra: ra, size: int64(len(run))})
	}
}

// Close stops the Builder's goroutine, when it has one, once the runs
// handed to it are written; Finish closes it too.
func (b *Builder) Close() {
	if b.work != nil {
		close(b.work)
		<-b.done
		b.work = nil
	}
}

// Finish writes the segment of every document added, at tip, to out and
// says its size. The runs are the Spill's to release.
func (b *Builder) Finish(tip [20]byte, out Output) (int64, error) {
	if b.work == nil {
		docs := b.docs
		b.docs = nil
		return buildTo(out, b.store, tip, docs)
	}
	if len(b.docs) > 0 {
		b.send()
	}
	b.Close()
	if b.err != nil {
		return 0, b.err
	}
	return merge(out, b.store, tip, b.runs)
}
