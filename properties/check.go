package properties

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/faults"
	"pgregory.net/rapid"
)

// CheckOptions configures CheckWith.
type CheckOptions struct {
	// Strategy chooses the interleavings; the zero value is random.
	Strategy Strategy
	// Wrap, if set, wraps each execution of every run, as
	// SearchOptions.Wrap: InBubble(t) runs each in a testing/synctest
	// bubble, the history and its reference run in one each.
	Wrap func(prop func(*rapid.T)) func(*rapid.T)
	// Progress gets SearchOptions.Progress's lines; nil is stderr, so
	// that a long search or shrink in `go test -v` shows that it goes on
	// (io.Discard silences it).
	Progress io.Writer
}

// Check runs the convergence property in a Go test: CheckWith with no
// options.
func Check(t *testing.T, sc Scenario, mix faults.Mix) {
	t.Helper()
	CheckWith(t, sc, mix, CheckOptions{})
}

// CheckWith searches for a counterexample as Search does, with rapid's
// -rapid.checks and -rapid.seed, and fails the test with its report: the
// violated property, the shrunk fault schedule, the diagnosis, the trace
// of the minimal run, and the line that replays it (the scenario's
// Program line, else `go test ./<package> -run '^<Test>$'
// -rapid.seed=N`). Past 64 runs it says how the search and the shrink go
// on stderr (CheckOptions.Progress). It also writes the timeline page of the minimal run
// (see TimelineDirEnv) and logs its path.
func CheckWith(t *testing.T, sc Scenario, mix faults.Mix, opts CheckOptions) {
	t.Helper()
	progress := opts.Progress
	if progress == nil {
		progress = os.Stderr
	}
	res, err := Search(sc, mix, SearchOptions{Test: t, Strategy: opts.Strategy, Wrap: opts.Wrap, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	cx := res.Counterexample
	if cx == nil {
		return
	}
	writeTestTimeline(t, sc, cx.Faults, cx.minimal, cx.Replay)
	t.Logf("trace of the failing run:\n%v", lazyTrace{cx.Trace})
	t.Fatalf("after %d runs: %s", res.Runs, cx.Report())
}

// InBubble returns a Wrap (CheckOptions, SearchOptions) that runs every
// execution (a run, or a run's reference run) inside its own
// testing/synctest bubble, a child of t, so that the
// time user code reads is virtual (the controllerruntime module's clock
// follows the model's inside one). A failure inside the bubble is raised
// again outside it from a call depth that stands for its failure site, so
// that rapid, which shrinks only while a failure keeps its traceback,
// still tells failure sites apart (trap 5 in docs/design.md).
func InBubble(t *testing.T) func(func(*rapid.T)) func(*rapid.T) {
	return func(prop func(*rapid.T)) func(*rapid.T) {
		return func(rt *rapid.T) {
			var failure any
			var site string
			synctest.Test(t, func(*testing.T) {
				defer func() {
					if r := recover(); r != nil {
						failure, site = r, failureSite()
					}
				}()
				prop(rt)
			})
			if failure != nil {
				raiseAt(sites.depth(site), failure)
			}
		}
	}
}

// failureSite names the first frame of a panicking stack outside the
// runtime, rapid and InBubble: where the property failed.
func failureSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "pgregory.net/rapid.") && !strings.Contains(f.Function, "properties.failureSite") && !strings.Contains(f.Function, "properties.InBubble") {
			return fmt.Sprintf("%s:%d", f.Function, f.Line)
		}
		if !more {
			return ""
		}
	}
}

// siteDepths gives each failure site seen in this process its own depth.
type siteDepths struct {
	mu     sync.Mutex
	depths map[string]int
}

var sites = &siteDepths{depths: map[string]int{}}

func (s *siteDepths) depth(site string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.depths[site]
	if !ok {
		d = len(s.depths) + 1
		s.depths[site] = d
	}
	return d
}

// raiseAt panics with v from depth nested calls.
func raiseAt(depth int, v any) {
	if depth <= 0 {
		panic(v)
	}
	raiseAt(depth-1, v)
}
