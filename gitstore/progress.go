package gitstore

// Progress hears how far a long piece of work has got: done items of
// total (0: not known yet). It is called from the working goroutine, once
// per item, so it must be cheap; a front-end decides what to show (the
// CLI: a line on stderr on a terminal, as git does).
type Progress func(done, total int)
