package fuzzrun_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	brokenex "github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ignoresConflicts swallows a Conflict on its writes, under every healable
// kind: a Conflict must fail the writes of one reconcile, which rapid's
// single draws rarely do (BENCHMARKS.md, "Bug classes") and the plan's
// API errors do in its first runs (docs/design.md, "The plan in
// campaigns").
func ignoresConflicts() properties.Scenario {
	return properties.Scenario{
		Name:   "ignores-conflicts",
		Doc:    "a ReplicaSet controller that swallows a Conflict on its writes",
		Build:  brokenex.QuietWorld(brokenex.IgnoresConflicts()),
		Expect: []properties.Expectation{{Faults: scenarios.Healable, Fails: properties.ResyncDependent}},
	}
}

// planCampaign runs a campaign of the ignores-conflicts row with args,
// and returns its events.
func planCampaign(t *testing.T, args ...string) map[string][]map[string]any {
	t.Helper()
	code, out, stderr := runWith([]properties.Scenario{ignoresConflicts()}, append([]string{"-json", "-scenario", "ignores-conflicts", "-workers", "1"}, args...)...)
	require.NotEqual(t, fuzzrun.ExitUsage, code, stderr)
	return events(t, out)
}

// failingSeeds are the seeds of a campaign's findings of verdict v.
func failingSeeds(evs map[string][]map[string]any, v string) []uint64 {
	var out []uint64
	for _, f := range evs["finding"] {
		if f["verdict"] == v {
			out = append(out, uint64(f["seed"].(float64)))
		}
	}
	slices.Sort(out)
	return out
}

// TestACampaignRunsThePlan: a campaign of 12 runs of the ignores-conflicts
// row finds its resync-dependent bug on a planned run (an odd offset from
// -seed); the same campaign with -no-plan, rapid's 12 single draws, does
// not.
func TestACampaignRunsThePlan(t *testing.T) {
	with := planCampaign(t, "-runs", "12")
	seeds := failingSeeds(with, string(properties.ResyncDependent))
	require.NotEmpty(t, seeds, "the plan finds the bug within 12 runs")
	assert.Equal(t, uint64(1), (seeds[0]-1)%2, "seed %d is a planned run: an odd offset from -seed", seeds[0])
	require.Len(t, with["summary"], 1)
	assert.Equal(t, 12.0, with["summary"][0]["runs"], "planned runs count in the summary's runs")

	without := planCampaign(t, "-runs", "12", "-no-plan")
	assert.Empty(t, failingSeeds(without, string(properties.ResyncDependent)), "rapid's single draws alone found it")
}

// TestAPlannedFindingReplaysFromItsFile: a planned run's finding file
// names its run of the plan, no seed replay line (a seed re-runs rapid's
// draw, not the plan's run), and -replay makes the run again, trace for
// trace (replay checks the recorded trace hash) and the same output twice.
func TestAPlannedFindingReplaysFromItsFile(t *testing.T) {
	dir := t.TempDir()
	planCampaign(t, "-runs", "12", "-out", dir)
	var planned string
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	for _, path := range files {
		if filepath.Base(path) == "summary.json" {
			continue
		}
		f, err := fuzzrun.ReadFinding(path)
		require.NoError(t, err)
		if f.Planned > 0 {
			planned = path
			assert.Empty(t, f.ReplaySeed, "a seed does not re-run a planned run")
			assert.Contains(t, f.Report, "faults planned from the reference run")
			assert.NotContains(t, f.Report, "-seed ")
		}
	}
	require.NotEmpty(t, planned, "a planned finding among %v", files)
	scs := []properties.Scenario{ignoresConflicts()}
	code1, out1, stderr := runWith(scs, "-replay", planned)
	require.Equal(t, fuzzrun.ExitOK, code1, "a failure the row must show: %s", stderr)
	code2, out2, _ := runWith(scs, "-replay", planned)
	assert.Equal(t, code1, code2)
	assert.Equal(t, out1, out2, "byte for byte")
}

// stable drops a campaign's wall-clock fields from its events.
func stable(evs map[string][]map[string]any) map[string][]map[string]any {
	for _, s := range evs["summary"] {
		delete(s, "runs_per_s")
		delete(s, "elapsed_s")
	}
	delete(evs, "progress")
	delete(evs, "start")
	return evs
}

// TestTheSameFlagsGiveTheSameCampaignWithThePlan: one worker and the same
// flags give the same findings, rows and summary, planned runs included.
func TestTheSameFlagsGiveTheSameCampaignWithThePlan(t *testing.T) {
	a := stable(planCampaign(t, "-runs", "30", "-seed", "7"))
	b := stable(planCampaign(t, "-runs", "30", "-seed", "7"))
	require.NotEmpty(t, a["finding"])
	assert.Equal(t, a, b)
}

// TestShardsSplitThePlannedRuns: shards 0..2 of a 12-run campaign run 12
// runs between them and fail on exactly the seeds, planned ones included,
// that the unsharded campaign fails on, each in one shard.
func TestShardsSplitThePlannedRuns(t *testing.T) {
	v := string(properties.ResyncDependent)
	whole := failingSeeds(planCampaign(t, "-runs", "12"), v)
	require.NotEmpty(t, whole)
	var union []uint64
	runs := 0.0
	for i := range 3 {
		part := planCampaign(t, "-runs", "12", "-shard", fmt.Sprintf("%d/3", i))
		runs += part["row"][0]["runs"].(float64)
		for _, s := range failingSeeds(part, v) {
			assert.Equal(t, uint64(i), (s-1)%3, "seed %d belongs to shard %d/3", s, (s-1)%3)
			assert.NotContains(t, union, s, "seed %d ran in two shards", s)
			union = append(union, s)
		}
	}
	slices.Sort(union)
	assert.Equal(t, 12.0, runs)
	assert.Equal(t, whole, union)
}

// TestNoPlanIsARandomCampaignsFlag: -no-plan with another strategy is a
// usage error, not a silent no-op.
func TestNoPlanIsARandomCampaignsFlag(t *testing.T) {
	code, _, stderr := run("-scenario", "replicaset-edge", "-runs", "2", "-strategy", "pct", "-no-plan")
	assert.Equal(t, fuzzrun.ExitUsage, code)
	assert.True(t, strings.Contains(stderr, "-no-plan"), stderr)
}

// TestALostRunThePlanMayCoverNamesNoSeedLine: a worker that dies on a
// seed at an odd offset from -seed (which may be a run of the plan, whose
// length only the worker knew) leaves a crash finding with no seed replay
// line, and one that dies on rapid's seed keeps its line.
func TestALostRunThePlanMayCoverNamesNoSeedLine(t *testing.T) {
	for shard, planned := range map[string]bool{"0/2": false, "1/2": true} {
		dir := t.TempDir()
		code, _, stderr := cli(t, "-scenario", "crashing", "-faults", "drop", "-runs", "2", "-shard", shard, "-workers", "2", "-out", dir)
		require.NotEqual(t, fuzzrun.ExitUsage, code, stderr)
		files, err := filepath.Glob(filepath.Join(dir, "finding-*.json"))
		require.NoError(t, err)
		require.Len(t, files, 1, "shard %s", shard)
		f, err := fuzzrun.ReadFinding(files[0])
		require.NoError(t, err)
		require.Equal(t, fuzzrun.VerdictCrash, f.Verdict)
		if planned {
			assert.Equal(t, uint64(2), f.Seed)
			assert.Empty(t, f.ReplaySeed, "seed 2 may be a planned run")
			assert.Contains(t, f.Report, "faults planned from the reference run")
		} else {
			assert.Equal(t, uint64(1), f.Seed)
			assert.Contains(t, f.ReplaySeed, "-seed 1")
		}
	}
}
