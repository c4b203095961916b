package controllerruntime

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

// Check runs properties.Converges under rapid in a Go test, every run
// inside its own testing/synctest bubble (rapid.SyncTest), so that the
// time user code reads is the model's virtual time and a run replays byte
// for byte, timestamps included. rapid shrinks and reports as with
// properties.Check; the line it prints replays the failure:
//
//	go test -run '^TestName$' -rapid.seed=N
func Check(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	prop := properties.Converges(sc, mix)
	rapid.Check(t, func(rt *rapid.T) { rapid.SyncTest(rt, prop) })
}

// InBubble returns a properties.SearchOptions.Wrap that runs every run of
// a search inside its own testing/synctest bubble, a child of t, so that
// the time user code reads is virtual (as Check does for rapid.Check).
// A failure inside the bubble is raised again outside it from a call
// depth that stands for its failure site, so that rapid, which shrinks
// only while a failure keeps its traceback, still tells failure sites
// apart (docs/design.md, Known trap 5).
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
// runtime and rapid: where the property failed.
func failureSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "pgregory.net/rapid.") && !strings.Contains(f.Function, "controllerruntime.failureSite") && !strings.Contains(f.Function, "controllerruntime.InBubble") {
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

// GoTestReplay returns a properties.SearchOptions.ReplayCommand that
// prints the go test line replaying a seed of the running test: the
// search runs with rapid's engine, so -rapid.seed replays it when the
// test hands its seed to the search (SearchOptions.Seed) from
// -rapid.seed, or, as here, when the test is run again unchanged.
func GoTestReplay(t *testing.T) func(seed uint64) string {
	return func(seed uint64) string {
		return fmt.Sprintf("go test -run '^%s$' -rapid.seed=%d", t.Name(), seed)
	}
}

// TestSeed returns the -rapid.seed flag when it is set, and def
// otherwise: a test that hands it to SearchOptions.Seed replays the seed
// GoTestReplay printed.
func TestSeed(def uint64) uint64 {
	if f := flag.Lookup("rapid.seed"); f != nil {
		if seed, err := strconv.ParseUint(f.Value.String(), 10, 64); err == nil && seed != 0 {
			return seed
		}
	}
	return def
}
