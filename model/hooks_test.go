package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookWorld is a cluster whose controller "gen" creates a pod for every
// pod it reconciles, up to four, with the first of its writes failed by a
// fault the cluster arms.
func hookWorld(t *testing.T) *Cluster {
	t.Helper()
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name: "gen", For: "Pod",
		NewReconciler: func(cl Client) Reconciler {
			return ReconcilerFunc(func(req Request) (Result, error) {
				if strings.Count(req.Name, "x") >= 4 {
					return Result{}, nil
				}
				return Result{}, cl.Create(&Object{Kind: "Pod", Namespace: "default", Name: req.Name + "x"})
			})
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	require.NoError(t, c.Faults().FailWrites("gen", statusErr(ReasonConflict, "injected"), 1, false))
	return c
}

// traceText is the trace's text, as a golden file holds it.
func traceText(t *testing.T, c *Cluster) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, c.Trace().WriteText(&b))
	return b.String()
}

// runToQuiet takes the first enabled action until there is none.
func runToQuiet(t *testing.T, c *Cluster) {
	t.Helper()
	for range 200 {
		acts := c.Enabled(nil)
		if len(acts) == 0 {
			return
		}
		c.Do(acts[0])
	}
	t.Fatal("the cluster did not settle")
}

// TestUserHooksAddToTheClustersOwn: write callbacks and intercepts a user
// adds to the server run after the cluster's own and never replace them:
// the trace is the same, byte for byte, as without them, the armed fault
// still fails its write, and the user sees every write.
func TestUserHooksAddToTheClustersOwn(t *testing.T) {
	plain := hookWorld(t)
	runToQuiet(t, plain)

	c := hookWorld(t)
	before := c.Writes()
	var order []string
	var seen []Write
	c.OnWrite(func(Write) { order = append(order, "cluster listener") })
	c.Server().OnWrite(func(w Write) { order = append(order, "server hook 1"); seen = append(seen, w) })
	c.Server().OnWrite(func(Write) { order = append(order, "server hook 2") })
	asked := 0
	c.Server().AddIntercept(func(string, Verb, Ref) (error, bool) { asked++; return nil, false })
	runToQuiet(t, c)

	assert.Equal(t, plain.Trace().Hash(), c.Trace().Hash(), "a user's hooks changed the trace")
	assert.Contains(t, traceText(t, c), "create Pod default/ax failed: Conflict (fault)")
	require.Equal(t, plain.Writes(), c.Writes())
	assert.Len(t, seen, c.Writes()-before, "the user's callback missed writes")
	recorded := 0
	for _, r := range c.Trace().Records {
		recorded += len(r.Writes)
	}
	assert.Equal(t, c.Writes(), recorded, "the trace missed writes")
	require.Len(t, order, 3*len(seen))
	for i := 0; i < len(order); i += 3 {
		assert.Equal(t, []string{"cluster listener", "server hook 1", "server hook 2"}, order[i:i+3])
	}
	// Every write of gen but the one the cluster's fault failed reached
	// the user's intercept: the chain stops at the first error.
	assert.Equal(t, 4, asked)
}

// TestTheFirstInterceptToFailDecides: a user's intercept runs after the
// cluster's fault; the call the fault fails never reaches it, and the
// next one fails as the user's intercept says.
func TestTheFirstInterceptToFailDecides(t *testing.T) {
	c := hookWorld(t)
	var asked []string
	c.Server().AddIntercept(func(caller string, verb Verb, ref Ref) (error, bool) {
		asked = append(asked, verb.String()+" "+ref.String())
		if len(asked) == 1 {
			return statusErr(ReasonTimeout, "user"), false
		}
		return nil, false
	})
	runToQuiet(t, c)
	var failed []string
	for _, r := range c.Trace().Records {
		for _, n := range r.Notes {
			if text := n.String(); strings.HasPrefix(text, "create Pod default/ax failed: ") {
				failed = append(failed, text)
			}
		}
	}
	assert.Equal(t, []string{
		"create Pod default/ax failed: Conflict (fault)",
		"create Pod default/ax failed: Conflict: injected",
		"create Pod default/ax failed: Timeout: user",
	}, failed, "the cluster's fault, then the user's intercept")
	assert.Len(t, asked, 5, "asked for every create but the faulted one")
	assert.Equal(t, 5, c.Server().Count("Pod"))
}

func TestNilHooksAddNothing(t *testing.T) {
	s, _ := newTestServer(10)
	s.OnWrite(nil)
	s.AddIntercept(nil)
	require.NoError(t, s.Create("test", pod("a")))
	assert.Equal(t, 1, s.Count("Pod"))
}
