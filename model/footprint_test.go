package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// creator is an actor that creates one App per move, named by its move.
type creator struct{ n int }

func (a *creator) Name() string { return "creator" }
func (a *creator) Act(o *Outside) error {
	a.n++
	return o.Create(&Object{Kind: "App", Namespace: "default", Name: string(rune('a' + a.n))})
}

// commuteCluster builds and starts a cluster with two level-triggered
// controllers of Apps, each with a queue, an actor that creates Apps, and
// events in flight to both controllers' informers.
func commuteCluster(t *testing.T) *Cluster {
	t.Helper()
	c := NewCluster(Config{})
	for _, name := range []string{"one", "two"} {
		require.NoError(t, c.AddController(Controller{
			Name:          name,
			For:           "App",
			NewReconciler: func(Client) Reconciler { return StatelessFunc(func(Request) (Result, error) { return Result{}, nil }) },
		}))
	}
	require.NoError(t, c.AddActor(&creator{}, 3))
	require.NoError(t, c.Start())
	require.NoError(t, c.Apply(&Object{Kind: "App", Namespace: "default", Name: "web"}))
	return c
}

// find returns the enabled action of kind on index i.
func find(t *testing.T, c *Cluster, kind ActionKind, i int) Action {
	t.Helper()
	for _, a := range c.Enabled(nil) {
		if a.Kind == kind && a.Index == i {
			return a
		}
	}
	t.Fatalf("%v %d is not enabled in %v", kind, i, c.Enabled(nil))
	return Action{}
}

// TestCommuteClaimsHold: for each pair Commute says commutes, both orders
// reach the same fingerprint; the pairs it refuses are refused.
func TestCommuteClaimsHold(t *testing.T) {
	c := commuteCluster(t)
	one, two := find(t, c, ActDeliver, 0), find(t, c, ActDeliver, 1)
	actor := find(t, c, ActActor, 0)
	for _, pair := range [][2]Action{{one, two}, {one, actor}, {actor, two}} {
		require.True(t, c.Commute(pair[0], pair[1]), "%v", pair)
		ab, ba := commuteCluster(t), commuteCluster(t)
		ab.Do(pair[0])
		ab.Do(pair[1])
		ba.Do(pair[1])
		ba.Do(pair[0])
		assert.Equal(t, ab.Fingerprint(), ba.Fingerprint(), "%v", pair)
	}
	assert.False(t, c.Commute(one, one), "an action with itself")
	assert.False(t, c.Commute(actor, actor), "two writes")
	assert.False(t, c.Commute(one, Action{Kind: ActTimer}), "a timer may do anything")
	assert.False(t, c.Commute(one, Action{Kind: ActRewatch, Index: 1}), "a rewatch may relist")

	require.NoError(t, c.Faults().ArmDelay("one", "App", 2))
	assert.False(t, c.Commute(one, two), "a delay sets a timer")
	assert.True(t, c.Commute(two, actor))
}

// TestCommuteRefusesUserMapping: a delivery whose mapping is user code
// that may read the server commutes with nothing.
func TestCommuteRefusesUserMapping(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name:          "app",
		For:           "App",
		Notify:        func(n Notification) []Request { return nil },
		NewReconciler: func(Client) Reconciler { return StatelessFunc(func(Request) (Result, error) { return Result{}, nil }) },
	}))
	require.NoError(t, c.AddActor(&creator{}, 1))
	require.NoError(t, c.Start())
	require.NoError(t, c.Apply(&Object{Kind: "App", Namespace: "default", Name: "web"}))
	assert.False(t, c.Commute(find(t, c, ActDeliver, 0), find(t, c, ActActor, 0)))
}
