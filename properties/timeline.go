package properties

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/timeline"
)

// TimelineDirEnv names the environment variable that, when set, is the
// directory where Check writes the timeline page of a failing test.
const TimelineDirEnv = "CONVERGE_TIMELINE_DIR"

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
	out, diverged, err := Replay(sc, cx.Schedule, cx.Choices, RunOptions{Inputs: cx.Inputs})
	if err != nil {
		return timeline.Run{}, err
	}
	if diverged {
		return timeline.Run{}, fmt.Errorf("the replay of scenario %s, seed %d left the recorded path", cx.Scenario, cx.Seed)
	}
	title := fmt.Sprintf("scenario %s, faults %s, seed %d", cx.Scenario, cx.Faults, cx.Seed)
	return out.Timeline(title, cx.Replay), nil
}

// writeTestTimeline writes the page of a test's minimal failing run, into
// $CONVERGE_TIMELINE_DIR or else a fresh directory under the system's
// temporary directory (the test's own t.TempDir is removed when the test
// ends, and the page would go with it), and logs its path.
func writeTestTimeline(t *testing.T, sc Scenario, mix faults.Mix, out *Outcome, replay string) {
	t.Helper()
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, t.Name())
	dir := os.Getenv(TimelineDirEnv)
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "converge-timeline-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		t.Logf("converge: cannot write the timeline page: %v", err)
		return
	}
	path := filepath.Join(dir, name+".html")
	title := fmt.Sprintf("%s: scenario %s, faults %s", t.Name(), sc.Name, mix)
	if err := timeline.WriteFile(path, out.Timeline(title, replay)); err != nil {
		t.Logf("converge: cannot write the timeline page: %v", err)
		return
	}
	t.Logf("timeline of the failing run: %s", path)
}
