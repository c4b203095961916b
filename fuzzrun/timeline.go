package fuzzrun

import (
	"bytes"
	"fmt"
	"io"
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

// findingTimeline replays a finding from its schedule and choices, inside
// wrap when it is not nil, and renders its timeline page.
func findingTimeline(f *Finding, sc properties.Scenario, wrap func(func())) ([]byte, error) {
	out, diverged, err := properties.Replay(sc, f.Schedule, f.Choices, properties.RunOptions{Inputs: f.Transitions, Wrap: wrap})
	if err != nil {
		return nil, err
	}
	if diverged {
		return nil, fmt.Errorf("the replay of the finding left its recorded path")
	}
	var b bytes.Buffer
	if err := timeline.Write(&b, out.Timeline(findingTitle(f), f.Replay)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeReplayTimeline writes a replay's timeline page to path (-html) and
// names it on report; a run that passed gets a page too, which says "No
// property violated" and draws the run. It returns ExitUsage, having said
// why on stderr, when the page cannot be written.
func writeReplayTimeline(report, stderr io.Writer, path string, run timeline.Run) int {
	var b bytes.Buffer
	err := timeline.Write(&b, run)
	if err == nil {
		err = os.WriteFile(path, b.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: -html: %v\n", err)
		return ExitUsage
	}
	if run.Violation == nil {
		fmt.Fprintf(report, "timeline: %s (no property violated: the page draws the passing run)\n", path)
	} else {
		fmt.Fprintf(report, "timeline: %s\n", path)
	}
	return ExitOK
}
