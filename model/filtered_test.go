package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFilteredNotificationsAreRecorded: a notification Notify turns into no
// request is recorded for diagnoses, one that enqueues a key is not.
func TestFilteredNotificationsAreRecorded(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name: "picky", For: "Pod",
		NewReconciler: func(Client) Reconciler {
			return ReconcilerFunc(func(Request) (Result, error) { return Result{}, nil })
		},
		Notify: func(n Notification) []Request {
			if n.Object.Name == "keep" {
				return []Request{{Namespace: n.Object.Namespace, Name: n.Object.Name}}
			}
			return nil
		},
	}))
	require.NoError(t, c.Start())
	out := c.Outside("user")
	require.NoError(t, out.Create(&Object{Kind: "Pod", Namespace: "default", Name: "keep"}))
	require.NoError(t, out.Create(&Object{Kind: "Pod", Namespace: "default", Name: "skip"}))
	for c.Busy() {
		for _, a := range c.Enabled(nil) {
			if a.Kind == ActDeliver || a.Kind == ActReconcile {
				c.Do(a)
				break
			}
		}
	}
	require.Len(t, c.Filtered(), 1)
	f := c.Filtered()[0]
	assert.Equal(t, "picky", f.Controller)
	assert.Equal(t, "Added Pod default/skip@2", f.String())
}
