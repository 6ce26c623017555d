package cmdutil

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// clock is a test clock the meter reads; tick moves it on.
type clock struct{ t time.Time }

func (c *clock) now() time.Time       { return c.t }
func (c *clock) tick(d time.Duration) { c.t = c.t.Add(d) }
func lastLine(out string) string      { s := strings.Split(out, "\r"); return s[len(s)-1] }
func newTestMeter(delay time.Duration) (*ProgressMeter, *bytes.Buffer, *clock) {
	var b bytes.Buffer
	c := &clock{t: time.Unix(1e9, 0)}
	return newProgressMeter(&b, "Verifying commits", c.now, delay), &b, c
}

// TestProgressMeterAsGit: the line git draws, redrawn only when the
// percent moves, ending with ", done.".
func TestProgressMeterAsGit(t *testing.T) {
	m, out, _ := newTestMeter(0)
	m.Update(1, 1000)
	assert.Equal(t, "\rVerifying commits:   0% (1/1000)", out.String())
	for i := 2; i <= 9; i++ {
		m.Update(i, 1000)
	}
	assert.Equal(t, "\rVerifying commits:   0% (1/1000)", out.String(), "no redraw while the percent stays")
	m.Update(450, 1000)
	assert.Equal(t, "Verifying commits:  45% (450/1000)", lastLine(out.String()))
	m.Update(1000, 1000)
	m.Stop()
	assert.True(t, strings.HasSuffix(out.String(), "\rVerifying commits: 100% (1000/1000), done.\n"), "%q", out.String())
}

// TestProgressMeterDelay: nothing before the delay, so a quick run leaves
// stderr as it was; a long one starts showing once it has passed.
func TestProgressMeterDelay(t *testing.T) {
	m, out, c := newTestMeter(2 * time.Second)
	m.Update(1, 10)
	m.Update(5, 10)
	m.Stop()
	assert.Empty(t, out.String(), "a run shorter than the delay prints nothing")

	m, out, c = newTestMeter(2 * time.Second)
	m.Update(1, 10)
	c.tick(3 * time.Second)
	m.Update(2, 10)
	assert.Equal(t, "\rVerifying commits:  20% (2/10)", out.String())
	m.Stop()
	assert.Equal(t, "Verifying commits:  20% (2/10), done.\n", lastLine(out.String()))
}

// TestProgressMeterUnknownTotal: a bare count, redrawn at most every
// progressInterval; a nil meter (a pipe, --json) does nothing.
func TestProgressMeterUnknownTotal(t *testing.T) {
	m, out, c := newTestMeter(0)
	m.Update(1, 0)
	m.Update(2, 0)
	assert.Equal(t, "\rVerifying commits: 1", out.String(), "throttled")
	c.tick(progressInterval)
	m.Update(12345, 0)
	assert.Equal(t, "Verifying commits: 12345", lastLine(out.String()))
	m.Stop()
	assert.Equal(t, "Verifying commits: 12345, done.\n", lastLine(out.String()))

	var none *ProgressMeter
	none.Update(1, 2)
	none.Stop()
	assert.Nil(t, none.Func())
}
