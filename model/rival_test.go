package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneRivalPerField: a rival started on a field another rival owns takes
// it over, so no two rivals ever fight each other; rivals of other fields
// go on.
func TestOneRivalPerField(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{Name: "idle", For: "Pod", NewReconciler: func(Client) Reconciler {
		return ReconcilerFunc(func(Request) (Result, error) { return Result{}, nil })
	}}))
	require.NoError(t, c.Start())
	require.NoError(t, c.Apply(&Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}))
	web := Ref{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, c.Faults().StartRival(Rival{Name: "rival", Target: web, Path: "status.replicas", Value: 3, Persistent: true}))
	require.NoError(t, c.Faults().StartRival(Rival{Name: "rival", Target: web, Path: "spec.replicas", Value: 1, Persistent: true}))
	require.NoError(t, c.Faults().StartRival(Rival{Name: "rival", Target: web, Path: "status.replicas", Value: 7, Persistent: true}))

	active := c.Faults().Rivals()
	require.Len(t, active, 2)
	assert.Equal(t, "spec.replicas", active[0].Path)
	assert.Equal(t, int64(7), active[1].Value, "the later rival owns status.replicas")
	for range 10 {
		for _, a := range c.Enabled(nil) {
			if a.Kind == ActRival {
				assert.NotZero(t, a.Index, "the rival taken over never writes")
				c.Do(a)
				break
			}
		}
	}
	assert.False(t, c.Busy(), "every rival has its value")
	o := c.State().Get("ReplicaSet", "default", "web")
	require.NotNil(t, o)
	assert.Equal(t, int64(7), o.Field("status.replicas"))
}
