package properties

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/timeline"
)

// TimelineDirEnv names the environment variable that, when set, is the
// directory where Check writes the timeline page of a failing test.
const TimelineDirEnv = "CONVERGE_TIMELINE_DIR"

// TimelineEnv names the environment variable that turns the pages of
// failing tests off: CONVERGE_TIMELINE=off. Unset or "on" writes them.
const TimelineEnv = "CONVERGE_TIMELINE"

// Timeline returns the outcome as a timeline page's run, under title and
// with the command that replays it.
func (o *Outcome) Timeline(title, replay string) timeline.Run {
	run := timeline.Run{
		Title:     title,
		Cluster:   o.Cluster,
		Schedule:  o.Schedule,
		QuietFrom: o.QuietFrom,
		Replay:    replay,
	}
	if f := o.Failure; f != nil {
		run.Violation = &timeline.Violation{
			Property:  f.Property,
			Verdict:   string(f.Verdict),
			Summary:   f.Summary,
			Details:   f.Details,
			Diagnosis: f.Diagnosis,
			Step:      f.Step,
			At:        f.At,
		}
	}
	return run
}

// Timeline replays the counterexample from its schedule and choices and
// returns the run for a timeline page. sc must be the scenario it was found
// in; a replay that leaves the recorded path is an error, since the page
// would show another run.
func (cx *Counterexample) Timeline(sc Scenario) (timeline.Run, error) {
	return cx.TimelineIn(sc, nil)
}

// TimelineIn is Timeline with the replay run inside wrap (RunOptions.Wrap),
// when it is not nil: a counterexample found in testing/synctest bubbles
// replays in one, so that its page shows the times its search saw.
func (cx *Counterexample) TimelineIn(sc Scenario, wrap func(run func())) (timeline.Run, error) {
	out, diverged, err := Replay(sc, cx.Schedule, cx.Choices, RunOptions{Inputs: cx.Inputs, Wrap: wrap})
	if err != nil {
		return timeline.Run{}, err
	}
	if diverged {
		return timeline.Run{}, fmt.Errorf("the replay of scenario %s, seed %d left the recorded path", cx.Scenario, cx.Seed)
	}
	title := fmt.Sprintf("scenario %s, faults %s, seed %d", cx.Scenario, cx.Faults, cx.Seed)
	return out.Timeline(title, cx.Replay), nil
}

// testPages is where the failing tests of this test binary write their
// pages: one directory, made at the first failure and named in its log,
// so that a run with many failures leaves one directory, not one each.
var testPages struct {
	mu  sync.Mutex
	dir string
	// used counts the pages of each name written in this run: a test
	// that fails twice (two Checks) writes name.html, then name-2.html.
	used map[string]int
}

// writeTestTimeline writes the page of a test's minimal failing run and
// logs its path, unless $CONVERGE_TIMELINE is off. The page goes into
// $CONVERGE_TIMELINE_DIR, or else a directory under the system's
// temporary directory that the whole test binary shares (the test's own
// t.TempDir is removed when the test ends, and the page would go with
// it).
func writeTestTimeline(t *testing.T, sc Scenario, mix faults.Mix, out *Outcome, replay string) {
	t.Helper()
	switch v := os.Getenv(TimelineEnv); v {
	case "off":
		return
	case "", "on":
	default:
		t.Logf("converge: %s=%q: want on or off; writing the page", TimelineEnv, v)
	}
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, t.Name())
	path, first, err := testPagePath(name)
	if err != nil {
		t.Logf("converge: cannot write the timeline page: %v", err)
		return
	}
	title := fmt.Sprintf("%s: scenario %s, faults %s", t.Name(), sc.Name, mix)
	if err := timeline.WriteFile(path, out.Timeline(title, replay)); err != nil {
		t.Logf("converge: cannot write the timeline page: %v", err)
		return
	}
	if first {
		t.Logf("timeline of the failing run: %s (the pages of every failing test of this run go to %s; %s=off writes none)", path, filepath.Dir(path), TimelineEnv)
		return
	}
	t.Logf("timeline of the failing run: %s", path)
}

// testPagePath returns the path of the next page named name, making the
// run's directory at the first call, and whether this is the run's first
// page.
func testPagePath(name string) (string, bool, error) {
	testPages.mu.Lock()
	defer testPages.mu.Unlock()
	first := testPages.dir == ""
	if first {
		dir := os.Getenv(TimelineDirEnv)
		var err error
		if dir == "" {
			dir, err = os.MkdirTemp("", "converge-timeline-")
		} else {
			err = os.MkdirAll(dir, 0o755)
		}
		if err != nil {
			return "", false, err
		}
		testPages.dir, testPages.used = dir, map[string]int{}
	}
	testPages.used[name]++
	if n := testPages.used[name]; n > 1 {
		name = fmt.Sprintf("%s-%d", name, n)
	}
	return filepath.Join(testPages.dir, name+".html"), first, nil
}
