package timeline_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/converge-sim/converge/timeline"
)

// The smallest use, as the package comment shows it: replay a run with
// properties.Replay (here the counterexample a search found; a finding
// file holds the same schedule and choices), or run one with
// properties.Execute, and write it as one HTML page.
func ExampleWriteFile() {
	sc, ok := scenarios.ByName("replicaset-edge")
	if !ok {
		panic("no scenario replicaset-edge")
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindDrop}, properties.SearchOptions{Checks: 100, Seed: 35})
	if err != nil {
		panic(err)
	}
	cx := res.Counterexample
	out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{})
	if err != nil || diverged {
		panic(fmt.Sprint("replay: ", err, diverged))
	}
	dir, err := os.MkdirTemp("", "timeline-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	err = timeline.WriteFile(filepath.Join(dir, "run.html"), timeline.Run{
		Title:    "scenario replicaset-edge, faults drop, seed 6",
		Cluster:  out.Cluster,
		Schedule: out.Schedule,
	})
	if err != nil {
		panic(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "run.html"))
	if err != nil {
		panic(err)
	}
	fmt.Println("verdict:", out.Failure.Verdict)
	fmt.Println("page holds its title:", strings.Contains(string(page), "scenario replicaset-edge, faults drop, seed 6"))
	// Output:
	// verdict: goal-unmet
	// page holds its title: true
}
