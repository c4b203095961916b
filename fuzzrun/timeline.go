package fuzzrun

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/timeline"
)

// timelinePath is where a campaign writes the timeline page of the
// finding file at path: beside it, with .html for .json.
func timelinePath(findingPath string) string {
	return strings.TrimSuffix(findingPath, ".json") + ".html"
}

// findingTitle heads the timeline page of a finding.
func findingTitle(f *Finding) string {
	return fmt.Sprintf("scenario %s, faults %s, seed %d", f.Scenario, f.Faults, f.Seed)
}

// writeFindingTimeline replays a finding from its schedule and choices and
// writes its timeline page atomically to path.
func writeFindingTimeline(path string, f *Finding, sc properties.Scenario) error {
	out, diverged, err := properties.Replay(sc, f.Schedule, f.Choices, properties.RunOptions{})
	if err != nil {
		return err
	}
	if diverged {
		return fmt.Errorf("the replay of the finding left its recorded path")
	}
	var b bytes.Buffer
	if err := timeline.Write(&b, out.Timeline(findingTitle(f), f.Replay)); err != nil {
		return err
	}
	return writeAtomic(path, b.Bytes())
}

// writeTimeline writes a replay's timeline page to path (-html).
func writeTimeline(path string, run timeline.Run) error {
	var b bytes.Buffer
	if err := timeline.Write(&b, run); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
