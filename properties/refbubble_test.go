package properties

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// bubbleEpoch is where a testing/synctest bubble's clock starts.
var bubbleEpoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// bubbleClock reads time as user code does under the controllerruntime
// adapter: it moves the bubble's clock forward to the model's time (one
// tick a second from the bubble's epoch), never back, and reads it. Each
// cluster's first reading, before it moves the clock, is appended to
// starts.
type bubbleClock struct {
	starts []time.Time
}

func (b *bubbleClock) reader() func(model.Time) model.Time {
	first := true
	return func(now model.Time) model.Time {
		if first {
			first = false
			b.starts = append(b.starts, time.Now().UTC())
		}
		if d := time.Until(bubbleEpoch.Add(time.Duration(now) * time.Second)); d > 0 {
			time.Sleep(d)
		}
		return model.Time(time.Since(bubbleEpoch) / time.Second)
	}
}

// bubblePeriodic is periodicScenario whose controller reads the time
// from the bubble's clock, with inputs drawn from final.
func bubblePeriodic(clock *bubbleClock, sticky bool, final model.Fields) Scenario {
	sc := periodicScenario(25, sticky)
	sc.Name = "periodic-bubble"
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(periodicReading(c, sticky, clock.reader())); err != nil {
			return nil, err
		}
		return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{"every": int64(10)})})
	}
	sc.Inputs = &Inputs{Target: cacheRef, Spec: rapid.Just(final), Max: 1}
	return sc
}

// bubbles returns a RunOptions.Wrap that runs each execution in a
// testing/synctest bubble of its own and counts them.
func bubbles(t *testing.T, n *int) func(run func()) {
	return func(run func()) {
		*n++
		synctest.Test(t, func(*testing.T) { run() })
	}
}

// TestTheReferenceRunHasABubbleOfItsOwn: with RunOptions.Wrap, the
// history and its reference run each run in a testing/synctest bubble of
// their own, so the reference run's controller reads, at its first
// reconcile, the clock a fresh cluster starts with, not the time where
// the history's bubble ended (docs/design.md, "The reference run sees the
// same world"). Made inside the history's bubble, as it was before, it
// reads t=25 (the control below). Search threads its Wrap to both.
func TestTheReferenceRunHasABubbleOfItsOwn(t *testing.T) {
	final := model.NewFields(model.Values{"every": int64(10), "image": "v2"})

	var clock bubbleClock
	wraps := 0
	out, err := Execute(bubblePeriodic(&clock, false, final), nil, firstChoice{}, RunOptions{Inputs: Transitions{final}, Wrap: bubbles(t, &wraps)})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1)
	assert.Nil(t, out.Failure, "%v", out.Failure)
	assert.Equal(t, 2, wraps, "one Wrap for the history, one for the reference run")
	assert.Equal(t, []time.Time{bubbleEpoch, bubbleEpoch}, clock.starts, "the history and the reference run each start on a fresh bubble's clock")

	// The control: one bubble for both, as a Wrap around the whole run
	// made it.
	var shared bubbleClock
	synctest.Test(t, func(t *testing.T) {
		out, err := Execute(bubblePeriodic(&shared, false, final), nil, firstChoice{}, RunOptions{Inputs: Transitions{final}})
		require.NoError(t, err)
		require.Len(t, out.Transitions, 1)
	})
	require.Len(t, shared.starts, 2)
	assert.Equal(t, bubbleEpoch, shared.starts[0])
	assert.Equal(t, bubbleEpoch.Add(25*time.Second), shared.starts[1], "in the history's bubble the reference run starts where the history's clock stopped")

	// A search hands its Wrap to each execution: every history and every
	// reference run starts on a fresh clock.
	var searched bubbleClock
	p, err := Prepare(bubblePeriodic(&searched, false, final), nil)
	require.NoError(t, err)
	res, err := p.Search(SearchOptions{Test: t, Checks: 10, Seed: 1, Wrap: InBubble(t)})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample)
	require.Positive(t, p.ReferenceRuns().Misses, "a reference run was made")
	for i, at := range searched.starts {
		assert.Equal(t, bubbleEpoch, at, "cluster %d", i)
	}
}

// TestAHistoryDependentTimeDrivenProjectIsStillFound: a controller that
// reads the bubble's clock and keeps the first period it saw (periodic,
// sticky) still has its real history-dependence reported when the
// reference run has a bubble of its own. A difference is confirmed by a
// second reference run driven to the time the history was judged
// (docs/design.md, "As long as the history ran"), in a bubble of its own
// too: three wraps.
func TestAHistoryDependentTimeDrivenProjectIsStillFound(t *testing.T) {
	final := model.NewFields(model.Values{"every": int64(7)})
	var clock bubbleClock
	wraps := 0
	out, err := Execute(bubblePeriodic(&clock, true, final), nil, firstChoice{}, RunOptions{Inputs: Transitions{final}, Wrap: bubbles(t, &wraps)})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	assert.Equal(t, 3, wraps, "the history, the reference at its quiet time, the reference at its time")
	assert.Equal(t, HistoryDependent, out.Failure.Verdict, out.Failure.Report(nil))
	assert.Contains(t, out.Failure.Details, "Cache default/web status.every: 10 after the transitions, 7 in a fresh cluster")
	assert.Contains(t, out.Failure.Details, "Run default/web-20: after the transitions, not in a fresh cluster")
	assert.Contains(t, out.Failure.Details, "Run default/web-21: in a fresh cluster, missing after the transitions")

	// Found by a search in bubbles too.
	res, err := Search(bubblePeriodic(&bubbleClock{}, true, final), faults.Mix{}, SearchOptions{Test: t, Checks: 20, Seed: 1, Wrap: InBubble(t)})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	assert.Equal(t, HistoryDependent, res.Counterexample.Failure.Verdict, res.Counterexample.Report())
}

// TestAWrapThatDoesNotRunIsAnError: a RunOptions.Wrap that returns
// without calling its run is an error, not a run that passed.
func TestAWrapThatDoesNotRunIsAnError(t *testing.T) {
	_, err := Execute(periodicScenario(25, false), nil, firstChoice{}, RunOptions{Wrap: func(func()) {}})
	require.ErrorContains(t, err, "the run's Wrap (RunOptions) called it 0 times, want exactly once")
}
