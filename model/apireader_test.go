package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveCluster runs one level-triggered controller "live" over Pods that
// does nothing, and returns its client.
func liveCluster(t *testing.T) (*Cluster, Client) {
	t.Helper()
	c := NewCluster(Config{})
	var cl Client
	require.NoError(t, c.AddController(Controller{
		Name: "live", For: "Pod",
		NewReconciler: func(x Client) Reconciler {
			cl = x
			return ReconcilerFunc(func(Request) (Result, error) { return Result{}, nil })
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	return c, cl
}

func TestAPIReaderSeesWritesTheCacheHasNot(t *testing.T) {
	c, cl := liveCluster(t)
	require.NoError(t, c.Outside("user").Create(pod("b")))
	live := cl.(APIReader)

	_, err := cl.Get("Pod", "default", "b")
	assert.True(t, IsNotFound(err), "the cache has not seen b yet")
	got, err := live.GetLive("Pod", "default", "b")
	require.NoError(t, err)
	assert.Equal(t, "b", got.Name)

	cached, err := cl.List("Pod", ListOptions{})
	require.NoError(t, err)
	assert.Len(t, cached, 1)
	listed, err := live.ListLive("Pod", ListOptions{Namespace: "default", Selector: Selector{"app": "web"}})
	require.NoError(t, err)
	require.Len(t, listed, 2)
	assert.Equal(t, []string{"a", "b"}, []string{listed[0].Name, listed[1].Name})

	listed[0].Labels = listed[0].Labels.With("app", "mutated")
	assert.Equal(t, "web", c.Server().Peek(Ref{"Pod", "default", "a"}).Labels.Value("app"), "live reads are copies")
}

func TestAPIReaderFailsWhilePartitioned(t *testing.T) {
	c, cl := liveCluster(t)
	require.NoError(t, c.Faults().Partition("live", 5))
	_, err := cl.(APIReader).GetLive("Pod", "default", "a")
	assert.Equal(t, ReasonUnavailable, ReasonOf(err))
	_, err = cl.(APIReader).ListLive("Pod", ListOptions{})
	assert.Equal(t, ReasonUnavailable, ReasonOf(err))
}
