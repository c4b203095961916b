package model

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notifyCluster runs a level-triggered controller over Pods whose Notify
// records each notification and enqueues "seen/<name>", and returns the
// record and the keys reconciled.
func notifyCluster(t *testing.T, cfg Config, resync Time) (*Cluster, *[]string, *[]string) {
	t.Helper()
	c := NewCluster(cfg)
	var notes, reconciled []string
	require.NoError(t, c.AddController(Controller{
		Name: "n", For: "Pod", Watches: []Watch{{Kind: "ConfigMap"}}, ResyncPeriod: resync,
		NewReconciler: func(Client) Reconciler {
			return ReconcilerFunc(func(r Request) (Result, error) {
				reconciled = append(reconciled, r.Key())
				return Result{}, nil
			})
		},
		Notify: func(n Notification) []Request {
			line := fmt.Sprintf("%s %s %s", n.Type, n.Kind, n.Object.Name)
			if n.Old != nil {
				line += fmt.Sprintf(" old@%d new@%d same=%v", n.Old.ResourceVersion, n.Object.ResourceVersion, n.Old == n.Object)
			}
			if n.FinalStateUnknown {
				line += " unknown"
			}
			notes = append(notes, line)
			req := Request{Namespace: "seen", Name: n.Object.Name}
			n.Object.Name = "mutated" // a private copy: the cache keeps its own
			return []Request{req}
		},
	}))
	return c, &notes, &reconciled
}

func TestNotifyReplacesTheMappingAndSeesEventTypes(t *testing.T) {
	c, notes, reconciled := notifyCluster(t, Config{HistoryWindow: 1}, 10)
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	out := c.Outside("user")
	p, _ := out.Get("Pod", "default", "a")
	p.Spec.Set("image", "v2")
	require.NoError(t, out.Update(p))
	require.NoError(t, out.Create(&Object{Kind: "ConfigMap", Namespace: "default", Name: "cm"}))
	deliverAll(c)
	c.Do(Action{Kind: ActTimer}) // resync of the ConfigMap informer, then the Pod one
	c.Do(Action{Kind: ActTimer})
	require.NoError(t, c.Faults().BreakWatch("n", "Pod"))
	require.NoError(t, out.Delete(Ref{"Pod", "default", "a"}, DeleteOptions{}))
	require.NoError(t, out.Create(pod("b")))
	require.NoError(t, out.Create(pod("c")))
	deliverAll(c) // the watch expired: relist

	assert.Equal(t, []string{
		"Added Pod a",
		"Added ConfigMap cm",
		"Modified Pod a old@1 new@2 same=false",
		"Modified ConfigMap cm old@3 new@3 same=true",
		"Modified Pod a old@2 new@2 same=true",
		"Added Pod b",
		"Added Pod c",
		"Deleted Pod a unknown",
	}, *notes)
	for c.Busy() {
		c.Do(c.Enabled(nil)[0])
	}
	assert.Equal(t, []string{"seen/a", "seen/cm", "seen/b", "seen/c"}, *reconciled, "only the keys Notify returned")
	assert.Equal(t, 2, c.Informers()[1].Cached(), "b and c, under their own names")
}

func TestAWatchNeedsAMapOnlyWithoutNotify(t *testing.T) {
	c := NewCluster(Config{})
	err := c.AddController(Controller{
		Name: "x", For: "Pod", Watches: []Watch{{Kind: "ConfigMap"}},
		NewReconciler: func(Client) Reconciler { return nil },
	})
	assert.ErrorContains(t, err, "needs a Kind and a Map")
}
