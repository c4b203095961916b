package node_test

import (
	"testing"

	"github.com/converge-sim/converge/controllers/node"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// podWorkFirst picks a reconcile, else a delivery of a Pod event, else
// the first action: a Node event, if the kubelet watched nodes, would
// arrive last.
func podWorkFirst(c *model.Cluster, acts []model.Action) model.Action {
	for _, a := range acts {
		if a.Kind == model.ActReconcile {
			return a
		}
	}
	for _, a := range acts {
		if a.Kind == model.ActDeliver && c.Informers()[a.Index].Kind() == replicaset.PodKind {
			return a
		}
	}
	return acts[0]
}

// A kubelet whose node died runs nothing more, even before any event of the
// death could reach it: a node's readiness is its kubelet being alive. The
// pod is bound to the node after the node died (a scheduler whose cache
// still shows the node alive does that), and every reconcile of the
// kubelet runs before anything else.
func TestADeadNodesKubeletStartsNoPod(t *testing.T) {
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(node.Kubelet("node-1")))
	require.NoError(t, c.Apply(node.New("node-1")))
	require.NoError(t, c.Start())

	dead := node.New("node-1")
	dead.Status.Set(node.ReadyStatusPath, "False")
	out := c.Outside("node-failure")
	live, err := out.Get(node.Kind, "", "node-1")
	require.NoError(t, err)
	dead.ResourceVersion = live.ResourceVersion
	require.NoError(t, out.UpdateStatus(dead))
	pod := &model.Object{Kind: replicaset.PodKind, Namespace: "default", Name: "web-1", Spec: model.NewFields(model.Values{"nodeName": "node-1"})}
	require.NoError(t, out.Create(pod))

	for range 100 {
		acts := c.Enabled(nil)
		if len(acts) == 0 {
			break
		}
		c.Do(podWorkFirst(c, acts))
	}
	got := c.Server().Peek(pod.Ref())
	require.NotNil(t, got)
	assert.False(t, replicaset.Ready(got), "the dead node's kubelet reported its pod ready")
	assert.Empty(t, c.Goals(), "a dead node's kubelet owes nothing")
}
