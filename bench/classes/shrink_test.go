package classes_test

import (
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPairDeletionCannotCutShrinksToOneFault is the random search's
// targeted pass, on rapid's draws alone (SearchOptions.NoPlan: a planned
// run of one fault finds this seed's bug first) (docs/design.md, "Faults rapid cannot delete"): from
// seed 17, max-retries under its whole mix fails with an apierror
// failing 4 writes and a 1-tick partition, and neither can be deleted
// (the partition stands in for the writes the count misses). A search
// under each kind alone, at most one fault, finds the same verdict with
// the apierror alone, failing 6 writes. The finding replays from its
// schedule and choices, trace for trace, and the seed searched again
// finds it again.
func TestAPairDeletionCannotCutShrinksToOneFault(t *testing.T) {
	c := class(t, "max-retries")
	p, err := properties.PrepareWith(c.Scenario, c.Faults, properties.PrepareOptions{})
	require.NoError(t, err)
	sr, err := p.Search(properties.SearchOptions{Checks: classes.Budget, Seed: 17, Test: t, NoPlan: true})
	require.NoError(t, err)
	cx := sr.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, c.Fails, cx.Failure.Verdict)
	assert.Len(t, cx.Shrunk, 2, "rapid's shrink keeps two faults from this seed: the test no longer checks the pass")
	require.Len(t, cx.Schedule, 1, "the shrunk schedule: %v", cx.Schedule)
	assert.Equal(t, faults.KindAPIError, cx.Schedule[0].Fault.Kind())
	assert.Equal(t, faults.Faithful, cx.Class)

	out, diverged, err := properties.Replay(c.Scenario, cx.Schedule, cx.Choices, properties.RunOptions{Inputs: cx.Inputs})
	require.NoError(t, err)
	assert.False(t, diverged)
	assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash(), "the finding replays from its file")

	again, err := p.Search(properties.SearchOptions{Checks: classes.Budget, Seed: 17, Test: t, NoPlan: true})
	require.NoError(t, err)
	require.NotNil(t, again.Counterexample)
	assert.Equal(t, cx.Schedule, again.Counterexample.Schedule, "the seed shrinks to the same schedule again")
	assert.Equal(t, cx.Trace.Hash(), again.Counterexample.Trace.Hash(), "the seed's finding is the same run again")
}

// class returns the class of the core benchmark named name.
func class(t *testing.T, name string) classes.Class {
	t.Helper()
	for _, c := range classes.All() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no class %s", name)
	return classes.Class{}
}
