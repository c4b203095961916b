package scenarios

import (
	"testing"

	"github.com/converge-sim/converge/controllers/deployment"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/require"
)

// TestRolloutBoundsCatchASurgeAfterTheyHeld: the surge bound, once it has
// held (and is not checked again until a write), still catches a
// ReplicaSet scaled past replicas+maxSurge by the next writes.
func TestRolloutBoundsCatchASurgeAfterTheyHeld(t *testing.T) {
	c, err := Deployment().Build(model.Config{DiscardTrace: true})
	require.NoError(t, err)
	invs := rolloutBounds(c)
	require.Len(t, invs, 2)
	surge := invs[0]
	require.NoError(t, c.Start())
	c.StopActors() // no rollout, no node failure: nothing disrupts the bounds
	settleAll(c)
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
	scale := func(replicas int64) {
		rs, err := out.Get(replicaset.Kind, "default", rss[0].Name)
		require.NoError(t, err)
		require.NoError(t, out.Set(rs, "spec.replicas", replicas))
	}
	scale(deploymentReplicas + maxSurge)
	require.NoError(t, surge.Check(c.State()), "replicas+maxSurge pods are within the bound")
	scale(deploymentReplicas + maxSurge + 1)
	require.ErrorContains(t, surge.Check(c.State()), "more than replicas+maxSurge")
}

// TestTheSurgeBoundCountsWhatReplicaSetsWant: pods a ReplicaSet has not
// shed yet after a scale-down are not a surge; Kubernetes' maxSurge bounds
// what the ReplicaSets want.
func TestTheSurgeBoundCountsWhatReplicaSetsWant(t *testing.T) {
	c, err := Deployment().Build(model.Config{DiscardTrace: true})
	require.NoError(t, err)
	surge := rolloutBounds(c)[0]
	require.NoError(t, c.Start())
	st := c.State()
	d := st.Get(deployment.Kind, "default", "web")
	out := c.Outside("test")
	rs := &model.Object{Kind: replicaset.Kind, Namespace: "default", Name: "web-old",
		OwnerReferences: []model.OwnerReference{model.NewOwnerReference(d)},
		Spec:            model.NewFields(model.Values{"replicas": int64(1), "selector.matchLabels.app": "web"})}
	require.NoError(t, out.Create(rs))
	for range deploymentReplicas + maxSurge + 1 {
		require.NoError(t, out.Create(replicaset.NewPod(rs)))
	}
	require.NoError(t, surge.Check(c.State()), "one pod wanted, the rest being shed")
}

// TestTheAvailabilityBound: from a rollout started in a complete state, the
// bound catches ready pods lost to a scale-down, unless the Deployment
// controller decided that scale-down on a ReplicaSet status that lagged its
// ready pods, as Kubernetes' own can.
func TestTheAvailabilityBound(t *testing.T) {
	for _, lagging := range []bool{false, true} {
		c, err := Deployment().Build(model.Config{DiscardTrace: true})
		require.NoError(t, err)
		available := rolloutBounds(c)[1]
		require.NoError(t, c.Start())
		c.StopActors()
		settleAll(c)
		st := c.State()
		d := st.Get(deployment.Kind, "default", "web")
		rs := st.List(replicaset.Kind, model.ListOptions{Namespace: "default", Owner: d.UID})[0]

		user := c.Outside("user")
		live, err := user.Get(deployment.Kind, "default", "web")
		require.NoError(t, err)
		require.NoError(t, user.Set(live, "spec.template.spec.containers[0].image", "app:v2")) // from a complete state
		if lagging {
			old, err := user.Get(replicaset.Kind, "default", rs.Name)
			require.NoError(t, err)
			old.Status.Set("readyReplicas", int64(1))
			require.NoError(t, user.UpdateStatus(old))
		}
		// The Deployment controller's write, by name: the old ReplicaSet
		// scaled to 1, and its pods lost their readiness but one.
		old, err := user.Get(replicaset.Kind, "default", rs.Name)
		require.NoError(t, err)
		require.NoError(t, c.Outside("deployment").Set(old, "spec.replicas", int64(1)))
		pods, _ := c.Server().List(replicaset.PodKind, model.ListOptions{Namespace: "default", Owner: rs.UID})
		for _, p := range pods[1:] {
			p.Status.Set("conditions[0].status", "False")
			require.NoError(t, c.Outside("kubelet").UpdateStatus(p))
		}
		err = available.Check(c.State())
		if lagging {
			require.NoError(t, err, "decided on a status that lagged its pods")
		} else {
			require.ErrorContains(t, err, "fewer than replicas-maxUnavailable")
		}
	}
}

// settleAll does the cluster's first enabled action until none is left
// (at most 500).
func settleAll(c *model.Cluster) {
	var acts []model.Action
	for range 500 {
		if acts = c.Enabled(acts[:0]); len(acts) == 0 {
			return
		}
		c.Do(acts[0])
	}
}
