package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outOfInput panics as rapid does when a shrunk run's input runs out.
type outOfInput struct{}

func (outOfInput) Choose(int, string) int { panic("overrun") }

// A chooser's panic inside a controller's draw is the run's source running
// out, not the controller's panic: it reaches the caller of the step.
func TestAChoosersPanicInAControllerReachesTheCaller(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name: "drawer",
		For:  "Pod",
		NewReconciler: func(Client) Reconciler {
			return ReconcilerFunc(func(Request) (Result, error) {
				c.Choose(3, "drawer: how long")
				return Result{}, nil
			})
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	c.SetChooser(outOfInput{})
	assert.PanicsWithValue(t, "overrun", func() {
		for range 20 {
			acts := c.Enabled(nil)
			if len(acts) == 0 {
				return
			}
			c.Do(acts[0])
		}
	})
	assert.Nil(t, c.Panic(), "no controller panicked")
}
