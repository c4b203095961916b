package properties

import (
	"fmt"
	"io"
	"time"

	"pgregory.net/rapid"
)

// progress writes SearchOptions.Progress's lines. It reads the wall clock,
// which only the lines show: nothing of it enters a run, its trace or the
// report.
type progress struct {
	w     io.Writer
	name  string
	start time.Time
	// runs counts the property's calls, made the runs executed; the
	// memo answered the rest.
	runs, made int
	// wasAnswered says the run being observed was answered by the memo.
	wasAnswered bool
	// firstFailure is the run that failed first, 0 before; failing is
	// the last failing run seen and its choices.
	firstFailure int
	failing      *Outcome
	choices      int
}

// firstProgressLine is the run after which the first line is written;
// the next ones follow at every power of two.
const firstProgressLine = 64

func newProgress(w io.Writer, name string) *progress {
	return &progress{w: w, name: name, start: time.Now()}
}

// answered is told that the memo answers a failing run.
func (pg *progress) answered() { pg.wasAnswered = true }

// observed sees a run made or answered.
func (pg *progress) observed(out *Outcome, choices []int) {
	if !pg.wasAnswered {
		pg.made++
	}
	pg.wasAnswered = false
	if out.Failure != nil {
		if pg.firstFailure == 0 {
			pg.firstFailure = pg.runs
		}
		pg.failing, pg.choices = out, len(choices)
	}
}

// wrap counts the calls of prop and writes a line after each one whose
// count is a power of two from firstProgressLine, the failing ones
// included (rapid's t.Fatal unwinds through it).
func (pg *progress) wrap(prop func(*rapid.T)) func(*rapid.T) {
	if pg.w == nil {
		return prop
	}
	return func(t *rapid.T) {
		pg.runs++
		if n := pg.runs; n >= firstProgressLine && n&(n-1) == 0 {
			defer pg.line()
		}
		prop(t)
	}
}

// line writes where the search stands.
func (pg *progress) line() {
	elapsed := time.Since(pg.start).Round(100 * time.Millisecond)
	head := fmt.Sprintf("converge: %s: %d runs (%d made, %d answered by the memo), %v", pg.name, pg.runs, pg.made, pg.runs-pg.made, elapsed)
	if pg.failing == nil {
		_, _ = fmt.Fprintf(pg.w, "%s: searching, no failure yet\n", head)
		return
	}
	out := pg.failing
	_, _ = fmt.Fprintf(pg.w, "%s: shrinking the failure of run %d (%s): now %s, %d choices, %d steps, virtual time %v\n",
		head, pg.firstFailure, out.Failure.Verdict, plural(len(out.Schedule), "fault"), pg.choices, out.Cluster.Steps(), out.Cluster.Now())
}
