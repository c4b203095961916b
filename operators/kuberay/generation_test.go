package kuberay_test

import (
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnUndoneEditLeavesObservedGenerationBehind: a real finding, with no
// fault at all. Once the cluster is up and its status is at generation 1,
// the user sets the worker group's replicas 2→1 and at once back 1→2,
// before the controller reconciles the first edit (two applies in a row,
// a GitOps revert: the workqueue holds one key for both). The controller
// then reconciles generation 3, whose spec is the one it already serves,
// computes the same status but for observedGeneration, and writes
// nothing: utils.InconsistentRayClusterStatus ignores ObservedGeneration.
// Nothing changes after that, so status.observedGeneration stays 1 of 3
// for good, and a client waiting for observedGeneration == generation (a
// GitOps health check, kubectl wait) waits forever. The same two edits
// with a reconcile between them converge: that run is the control.
//
// The run is one properties.Execute of the harness's scenario with an
// empty schedule and a chooser that plays the story (edits), so model
// changes that renumber choices do not lose it. TestMeasure's random
// schedules met it first (run 192, with restarts and a duplicate that
// play no part in it); suite.Measure counts it as known (knownFindings).
func TestAnUndoneEditLeavesObservedGenerationBehind(t *testing.T) {
	out := runEdits(t, false)
	f := out.Failure
	require.NotNil(t, f, "the undone edit converged: the finding is gone (a fix in KubeRay, or a weaker goal)")
	report := f.Report(out.Schedule)
	assert.Equal(t, properties.GoalUnmet, f.Verdict, report)
	assert.Empty(t, out.Schedule, "no fault")
	for _, want := range []string{
		"RayCluster default/ray status has seen generation 1 of 3",
		"by user: update RayCluster default/ray@", "{spec.workerGroupSpecs[0].replicas: 2→1}",
		"{spec.workerGroupSpecs[0].replicas: 1→2}",
	} {
		assert.Contains(t, report, want)
	}
	assert.True(t, knownFindings[0].Match(f), "suite.Measure must count this run as the known finding:\n%s", report)

	control := runEdits(t, true)
	if control.Failure != nil {
		t.Fatalf("with a reconcile between the two edits the run must converge, but:\n%s", control.Failure.Report(control.Schedule))
	}
}

// runEdits runs the scenario with no fault under an edits chooser: the
// user's two moves pick 1 then 2 workers, with the cluster settled
// between them if settle is set.
func runEdits(t *testing.T, settle bool) *properties.Outcome {
	t.Helper()
	sc := scenario(t)
	e := &edits{counts: []int{1, 2}, settle: settle}
	build := sc.Build
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c, err := build(cfg)
		e.c = c
		return c, err
	}
	var out *properties.Outcome
	var err error
	synctest.Test(t, func(*testing.T) {
		out, err = properties.Execute(sc, nil, e, properties.RunOptions{})
	})
	require.NoError(t, err)
	require.Equal(t, 2, e.moves, "the user made %d moves of 2", e.moves)
	require.Equal(t, 2, e.picked, "the user picked %d worker counts of 2", e.picked)
	return out
}

// edits is a chooser that plays one story through a run, reading the
// run's cluster to find the step it wants: the cluster settles and its
// timers fire with no outside change until its goals are met; then the
// user moves, and moves again either at once (before any event of the
// first move is delivered or reconciled) or, with settle, once the
// cluster has settled and met its goals again. After the second move the
// events in flight are delivered before anything else runs (both watch
// events reach the informer before its workqueue hands the key out, as
// they do when the two edits come a few milliseconds apart, and as the
// fair scheduler of quiescence delivers first: docs/design.md, "Faults",
// Quiescence); then
// everything settles and the fault phase runs out. The user's worker
// counts are counts, in order.
type edits struct {
	c      *model.Cluster
	counts []int
	settle bool
	moves  int
	picked int
	// delivered says the events in flight after the second move have
	// all been delivered (before any reconcile).
	delivered bool
	buf       []model.Action
}

// Choose answers the fault phase's step choices as the story goes (among
// the enabled actions, after a first "settle" choice when the cluster is
// busy, as properties' runner numbers them), the user's count choices from
// counts, and any other choice with 0.
func (e *edits) Choose(n int, label string) int {
	switch label {
	case "user picks a worker count":
		if e.picked >= len(e.counts) || e.counts[e.picked] >= n {
			return 0
		}
		e.picked++
		return e.counts[e.picked-1]
	case "step":
	default:
		return 0
	}
	busy := e.c.Busy()
	e.buf = e.c.Enabled(e.buf[:0])
	at := func(k model.ActionKind) int {
		for i, a := range e.buf {
			if a.Kind == k {
				if busy {
					i++
				}
				return i
			}
		}
		return -1
	}
	user, deliver := at(model.ActActor), at(model.ActDeliver)
	switch {
	case user >= 0 && e.moves == 1 && !e.settle:
		e.moves++
		return user
	case deliver >= 0 && e.moves == 2 && !e.delivered:
		return deliver
	case busy:
		e.delivered = e.moves == 2
		return 0
	case user >= 0 && e.moves < 2 && len(e.c.Goals()) == 0:
		e.moves++
		return user
	}
	return max(at(model.ActTimer), 0)
}
