package properties

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChainSaysAnOwnerWaitsOnItsPropagationPolicy: a Deployment whose
// ReplicaSet is being deleted in the foreground, held by a pod that a
// finalizer keeps: the chain of dependents says why the ReplicaSet stays.
func TestChainSaysAnOwnerWaitsOnItsPropagationPolicy(t *testing.T) {
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.Apply(&model.Object{Kind: "Deployment", Namespace: "default", Name: "web"}))
	d := c.State().Get("Deployment", "default", "web")
	require.NoError(t, c.Apply(&model.Object{Kind: "ReplicaSet", Namespace: "default", Name: "web-1", OwnerReferences: []model.OwnerReference{model.NewOwnerReference(d)}}))
	rs := c.State().Get("ReplicaSet", "default", "web-1")
	require.NoError(t, c.Apply(&model.Object{Kind: "Pod", Namespace: "default", Name: "web-1-a", Finalizers: []string{"example.com/hold"},
		OwnerReferences: []model.OwnerReference{model.NewOwnerReference(rs)}}))

	require.NoError(t, c.Outside("user").Delete(rs.Ref(), model.DeleteOptions{Propagation: model.PropagationForeground}))
	for c.Server().GCPending() {
		c.Server().CollectGarbage()
	}
	lines := chain(c.State(), d.Ref(), nil)
	assert.Contains(t, lines, "  → ReplicaSet default/web-1 {} {} (being deleted with propagation Foreground: waits for its blocking dependents)")
	assert.Contains(t, lines, "    → Pod default/web-1-a {} {}", "a finalizer of its own is no propagation")

	root := chain(c.State(), rs.Ref(), nil)
	assert.Equal(t, "ReplicaSet default/web-1 {} {} (being deleted with propagation Foreground: waits for its blocking dependents)", root[0])
}
