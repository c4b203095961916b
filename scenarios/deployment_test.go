package scenarios

import (
	"testing"

	"github.com/converge-sim/converge/controllers/deployment"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/require"
)

// TestRolloutBoundsCatchASurgeAfterTheyHeld: the surge bound, once it has
// held (and is not checked again until a write), still catches pods made
// past replicas+maxSurge by the next writes.
func TestRolloutBoundsCatchASurgeAfterTheyHeld(t *testing.T) {
	c, err := Deployment().Build(model.Config{DiscardTrace: true})
	require.NoError(t, err)
	invs := rolloutBounds(c)
	require.Len(t, invs, 2)
	surge := invs[0]
	require.NoError(t, c.Start())
	c.StopActors() // no rollout, no node failure: nothing disrupts the bounds
	var acts []model.Action
	for range 500 {
		if acts = c.Enabled(acts[:0]); len(acts) == 0 {
			break
		}
		c.Do(acts[0])
	}
	st := c.State()
	d := st.Get(deployment.Kind, "default", "web")
	require.NotNil(t, d)
	require.Len(t, deployment.Pods(st, d), deploymentReplicas, "the Deployment settled")
	for _, inv := range invs {
		require.NoError(t, inv.Check(st), inv.Name)
		require.NoError(t, inv.Check(st), inv.Name) // held: not checked again
	}
	rss := st.List(replicaset.Kind, model.ListOptions{Namespace: "default", Owner: d.UID})
	require.Len(t, rss, 1)
	out := c.Outside("test")
	for range maxSurge {
		require.NoError(t, out.Create(replicaset.NewPod(rss[0])))
	}
	require.NoError(t, surge.Check(c.State()), "replicas+maxSurge pods are within the bound")
	require.NoError(t, out.Create(replicaset.NewPod(rss[0])))
	require.ErrorContains(t, surge.Check(c.State()), "more than replicas+maxSurge")
}
