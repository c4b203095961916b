package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var coverage = properties.Strategy{Name: properties.StrategyCoverage}

// TestACoverageSearchIsTheSameTwice: one seed gives one coverage-guided
// search, run for run: the same failing run, shrunk to the same
// counterexample.
func TestACoverageSearchIsTheSameTwice(t *testing.T) {
	mix := faults.Mix{faults.KindRestart, faults.KindDuplicate}
	search := func() *properties.SearchResult {
		p, err := properties.Prepare(scenarios.ReplicaSetEdge(), mix)
		require.NoError(t, err)
		sr, err := p.Search(properties.SearchOptions{Checks: 100, Seed: 5, Strategy: coverage, ReplayCommand: func(uint64) string { return "replay" }})
		require.NoError(t, err)
		require.NotNil(t, sr.Counterexample, "the edge-triggered controller fails under restart")
		return sr
	}
	a, b := search(), search()
	assert.Equal(t, a.Runs, b.Runs)
	assert.Equal(t, a.Counterexample.Report(), b.Counterexample.Report())
	assert.Equal(t, a.Counterexample.Schedule, b.Counterexample.Schedule)
	assert.Equal(t, a.Counterexample.Choices, b.Counterexample.Choices)
	assert.Equal(t, a.Counterexample.Trace.Hash(), b.Counterexample.Trace.Hash())
	assert.Equal(t, coverage, a.Counterexample.Strategy)

	out, diverged, err := properties.Replay(scenarios.ReplicaSetEdge(), a.Counterexample.Schedule, a.Counterexample.Choices, properties.RunOptions{})
	require.NoError(t, err)
	assert.False(t, diverged, "the counterexample replays from its schedule and choices")
	assert.Equal(t, a.Counterexample.Trace.Hash(), out.Cluster.Trace().Hash())
}

// TestTheCorpusGrowsAndItsMutantsReplay: over a search that passes, runs
// that reach new coverage are kept, not all runs; mutants of them are
// among them; and every entry replays from its schedule and choices. The
// same search without feedback keeps nothing.
func TestTheCorpusGrowsAndItsMutantsReplay(t *testing.T) {
	mix := faults.Mix{faults.KindRestart, faults.KindDuplicate, faults.KindDelay, faults.KindAPIError}
	p, err := properties.Prepare(scenarios.ReplicaSetLevel(), mix)
	require.NoError(t, err)
	c := properties.NewCorpus()
	sr, err := p.Search(properties.SearchOptions{Checks: 60, Seed: 3, Strategy: coverage, Corpus: c, ReplayCommand: func(uint64) string { return "replay" }})
	require.NoError(t, err)
	require.Nil(t, sr.Counterexample, "the level-triggered controller converges")
	assert.Greater(t, c.Len(), 2, "runs reached new coverage")
	assert.Less(t, c.Len(), 60, "not every run is new")
	entries, mutants, err := properties.ReplayCorpus(p, c)
	require.NoError(t, err)
	assert.Equal(t, c.Len(), entries)
	assert.Positive(t, mutants, "mutants reached new coverage too")

	grown := c.Len()
	_, err = p.Search(properties.SearchOptions{Checks: 20, Seed: 4, Strategy: coverage, Corpus: c, ReplayCommand: func(uint64) string { return "replay" }})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, c.Len(), grown, "a corpus passed to the next search keeps what it had")

	fresh := properties.FreshCorpus()
	_, err = p.Search(properties.SearchOptions{Checks: 20, Seed: 3, Strategy: coverage, Corpus: fresh, ReplayCommand: func(uint64) string { return "replay" }})
	require.NoError(t, err)
	assert.Zero(t, fresh.Len())
}

// TestParseCoverage: the strategy parses by name and takes no depth.
func TestParseCoverage(t *testing.T) {
	s, err := properties.ParseStrategy("coverage", 0)
	require.NoError(t, err)
	assert.Equal(t, "coverage", s.String())
	_, err = properties.ParseStrategy("coverage", 2)
	assert.EqualError(t, err, "strategy coverage takes no depth (got 2)")
}

// TestTheCoverageSeedLineNamesTheStrategy: the line that re-runs a seed
// says -strategy coverage, so that it re-runs the same strategy.
func TestTheCoverageSeedLineNamesTheStrategy(t *testing.T) {
	mix := faults.Mix{faults.KindRestart}
	assert.Equal(t, "fuzzrun -scenario s -faults restart -strategy coverage -seed 9", properties.ReplayLine("fuzzrun", "s", mix, coverage, 9))
	assert.Equal(t, "fuzzrun -scenario s -faults restart -seed 9", properties.ReplayLine("fuzzrun", "s", mix, properties.Strategy{}, 9))
}

// TestTheCorpusKeepsItsBound: a corpus shared by searches keeps at most
// its bound of runs per mix, evicting as it goes, and what it keeps still
// replays; the same campaign twice is the same, evictions included. A
// negative bound is refused.
func TestTheCorpusKeepsItsBound(t *testing.T) {
	mix := faults.Mix{faults.KindRestart, faults.KindDuplicate, faults.KindDelay, faults.KindAPIError}
	p, err := properties.Prepare(scenarios.ReplicaSetLevel(), mix)
	require.NoError(t, err)
	campaign := func() *properties.Corpus {
		c, err := properties.NewBoundedCorpus(4)
		require.NoError(t, err)
		for seed := uint64(3); seed < 6; seed++ {
			_, err = p.Search(properties.SearchOptions{Checks: 30, Seed: seed, Strategy: coverage, Corpus: c, ReplayCommand: func(uint64) string { return "replay" }})
			require.NoError(t, err)
		}
		return c
	}
	c := campaign()
	assert.Equal(t, 4, c.Len(), "full, and no fuller")
	assert.Positive(t, c.Evicted(), "runs were evicted to keep the bound")
	entries, _, err := properties.ReplayCorpus(p, c)
	require.NoError(t, err)
	assert.Equal(t, 4, entries)
	again := campaign()
	assert.Equal(t, c.Evicted(), again.Evicted())
	assert.Equal(t, c.Features(), again.Features())

	assert.Equal(t, properties.MaxCorpusEntries, 64)
	_, err = properties.NewBoundedCorpus(-1)
	assert.EqualError(t, err, "corpus limit -1: must not be negative (0: no limit)")
}
