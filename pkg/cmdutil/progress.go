package cmdutil

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/git-records/git-records/service"
)

// ProgressMeter shows long work on stderr as git does: one line rewritten
// in place, "Verifying commits:  45% (450/1000)" (or a bare count while
// the total is unknown), ending with ", done.". It shows nothing until the
// work has run for GIT_PROGRESS_DELAY seconds (default 2, as git), so a
// quick run prints no line at all. A nil *ProgressMeter does nothing: the
// caller makes one only for a terminal, never in a pipe or with --json.
type ProgressMeter struct {
	w     io.Writer
	title string
	now   func() time.Time
	start time.Time
	delay time.Duration

	shown       bool
	done, total int
	percent     int // last percent written (-1: none)
	written     time.Time
	width       int // length of the last line, to blank what a shorter one leaves
}

// progressInterval is how often a count without a total is redrawn, and a
// percent at most.
const progressInterval = 100 * time.Millisecond

// NewProgressMeter starts a meter titled title writing to w.
func NewProgressMeter(w io.Writer, title string) *ProgressMeter {
	return newProgressMeter(w, title, time.Now, progressDelay())
}

func newProgressMeter(w io.Writer, title string, now func() time.Time, delay time.Duration) *ProgressMeter {
	return &ProgressMeter{w: w, title: title, now: now, start: now(), delay: delay, percent: -1}
}

// progressDelay is GIT_PROGRESS_DELAY in seconds, git's knob, else 2.
func progressDelay() time.Duration {
	if v, err := strconv.Atoi(os.Getenv("GIT_PROGRESS_DELAY")); err == nil && v >= 0 {
		return time.Duration(v) * time.Second
	}
	return 2 * time.Second
}

// Func is the meter as the service's progress callback (nil for a nil meter,
// so the work skips the calls altogether).
func (m *ProgressMeter) Func() service.Progress {
	if m == nil {
		return nil
	}
	return m.Update
}

// Update records done of total (0: unknown) and redraws the line when the
// percent moved, or the count did and progressInterval has passed.
func (m *ProgressMeter) Update(done, total int) {
	if m == nil {
		return
	}
	m.done, m.total = done, total
	percent := -1
	if total > 0 {
		percent = done * 100 / total
		if percent == m.percent {
			return // the cheap case: most calls change nothing on screen
		}
	}
	now := m.now()
	if !m.shown && now.Sub(m.start) < m.delay {
		return
	}
	if percent < 0 && m.shown && now.Sub(m.written) < progressInterval {
		return
	}
	m.draw("")
	m.percent, m.written = percent, now
}

// Stop ends the line with ", done." if it was ever shown; a run shorter
// than the delay leaves stderr untouched.
func (m *ProgressMeter) Stop() {
	if m == nil || !m.shown {
		return
	}
	m.draw(", done.\n")
}

func (m *ProgressMeter) draw(end string) {
	line := m.title + ": " + strconv.Itoa(m.done)
	if m.total > 0 {
		line = fmt.Sprintf("%s: %3d%% (%d/%d)", m.title, m.done*100/m.total, m.done, m.total)
	}
	pad := 0 // blank what a longer line before left, on a redraw
	if end == "" {
		pad = max(m.width-len(line), 0)
	}
	m.width = len(line)
	fmt.Fprintf(m.w, "\r%s%*s%s", line, pad, "", end)
	m.shown = true
}

// ProgressMeter is a meter titled title for long work, on stderr: only
// when stderr is a terminal and the output is not JSON; nil otherwise.
func (f *Factory) ProgressMeter(title string) *ProgressMeter {
	if f.JSON || !f.IOStreams.IsStderrTTY() {
		return nil
	}
	return NewProgressMeter(f.IOStreams.ErrOut, title)
}
