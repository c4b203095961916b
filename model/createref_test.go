package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAFailedCreateOfAGeneratedNameShowsItsPrefix: a create the server
// refuses before naming the object names it by its GenerateName in the
// trace, not as "Pod default/".
func TestAFailedCreateOfAGeneratedNameShowsItsPrefix(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name: "gen", For: "Pod",
		NewReconciler: func(cl Client) Reconciler {
			return ReconcilerFunc(func(Request) (Result, error) {
				return Result{}, cl.Create(&Object{Kind: "Pod", Namespace: "default", GenerateName: "web-"})
			})
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	require.NoError(t, c.Faults().FailWrites("gen", statusErr(ReasonConflict, "injected"), 1, false))
	var notes []string
	for range 20 {
		acts := c.Enabled(nil)
		if len(acts) == 0 {
			break
		}
		c.Do(acts[0])
		rec := c.Trace().Records[len(c.Trace().Records)-1]
		failed := false
		for _, n := range rec.Notes {
			notes = append(notes, n.String())
			failed = failed || strings.Contains(n.String(), "failed")
		}
		if failed {
			break
		}
	}
	assert.Contains(t, notes, "create Pod default/web-* failed: Conflict (fault)")
}
