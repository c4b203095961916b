package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitWorld is an App "a", a controller "maker" that creates the App's
// Child and then polls its cache, waiting one tick at a time, until the
// Child is ready, and a controller "readier" that marks every Child ready.
// polls is how many ticks maker waits at most; without readier the Child
// never becomes ready.
func waitWorld(t *testing.T, polls int, withReadier bool) (*Cluster, *[]string) {
	t.Helper()
	c := NewCluster(Config{})
	var seen []string
	require.NoError(t, c.AddController(Controller{
		Name: "maker", For: "App", Owns: []string{"Child"},
		NewReconciler: func(cl Client) Reconciler {
			return ReconcilerFunc(func(req Request) (Result, error) {
				app, err := cl.Get("App", req.Namespace, req.Name)
				if err != nil || app.Status.Bool("ready") {
					return Result{}, nil
				}
				if _, err := cl.Peek("Child", req.Namespace, req.Name); err != nil {
					child := &Object{Kind: "Child", Namespace: req.Namespace, Name: req.Name,
						OwnerReferences: []OwnerReference{{Kind: "App", Name: app.Name, UID: app.UID, Controller: true}}}
					if err := cl.Create(child); err != nil {
						return Result{}, err
					}
				}
				for range polls {
					child, err := cl.Peek("Child", req.Namespace, req.Name)
					switch {
					case err != nil:
						seen = append(seen, "absent")
					case child.Status.Bool("ready"):
						seen = append(seen, "ready")
						if err := app.SetField("status.ready", true); err != nil {
							return Result{}, err
						}
						return Result{}, cl.UpdateStatus(app)
					default:
						seen = append(seen, "not ready")
					}
					if err := cl.Wait(1); err != nil {
						return Result{}, err
					}
				}
				return Result{}, errors.New("child not ready in time")
			})
		},
	}))
	if withReadier {
		require.NoError(t, c.AddController(Controller{
			Name: "readier", For: "Child",
			NewReconciler: func(cl Client) Reconciler {
				return ReconcilerFunc(func(req Request) (Result, error) {
					child, err := cl.Get("Child", req.Namespace, req.Name)
					if err != nil || child.Status.Bool("ready") {
						return Result{}, nil
					}
					if err := child.SetField("status.ready", true); err != nil {
						return Result{}, err
					}
					return Result{}, cl.UpdateStatus(child)
				})
			},
		}))
	}
	require.NoError(t, c.Apply(&Object{Kind: "App", Namespace: "default", Name: "a"}))
	require.NoError(t, c.Start())
	return c, &seen
}

// runUntilQuiet does the first enabled action until nothing is owed and no
// timer is due before limit.
func runUntilQuiet(c *Cluster, limit Time) {
	for range 200 {
		acts := c.Enabled(nil)
		if len(acts) == 0 {
			return
		}
		if acts[0].Kind == ActTimer && c.NextTimer().At > limit {
			return
		}
		c.Do(acts[0])
	}
}

func traceLines(c *Cluster) []string {
	var out []string
	for _, r := range c.Trace().Records {
		out = append(out, r.String())
	}
	return out
}

// TestAWaitingReconcileSeesTheWorldMove: while maker waits inside its
// reconcile, its informer delivers its own create, readier reconciles the
// Child, and the update reaches maker's cache, all in virtual time; maker's
// reconcile then finds the Child ready and finishes. Without Wait's
// deliveries the poll would see the same frozen cache every time.
func TestAWaitingReconcileSeesTheWorldMove(t *testing.T) {
	c, seen := waitWorld(t, 5, true)
	start := c.Now()
	acts := c.Enabled(nil)
	require.Equal(t, ActReconcile, acts[0].Kind)
	c.Do(acts[0]) // maker's reconcile, waits included
	ctl, key, writes, ok := c.LastReconciled()
	assert.True(t, ok)
	assert.Equal(t, []any{"maker", "default/a", 2}, []any{ctl, key, writes}, "the reconcile's own writes, not readier's")
	assert.Equal(t, []string{"absent", "ready"}, *seen)
	app := c.State().Get("App", "default", "a")
	require.NotNil(t, app)
	assert.True(t, app.Status.Bool("ready"), "maker's reconcile went on after its wait")
	assert.Equal(t, start+1, c.Now(), "one tick of waiting passed in virtual time")
	lines := strings.Join(traceLines(c), "\n")
	assert.Contains(t, lines, "waits 1 ticks")
	assert.Contains(t, lines, "resumes after waiting 1 ticks")
	assert.Contains(t, lines, "readier reconcile")
}

// TestAWaitWithNobodyToActTimesOutInVirtualTime: with no readier, the poll
// runs out after its five waits, five ticks later, and the reconcile's
// error requeues it; nothing else acts meanwhile.
func TestAWaitWithNobodyToActTimesOutInVirtualTime(t *testing.T) {
	c, seen := waitWorld(t, 5, false)
	start := c.Now()
	for range 200 {
		acts := c.Enabled(nil)
		if len(acts) == 0 || acts[0].Kind != ActReconcile {
			if len(acts) == 0 || c.Now() > start {
				break
			}
		}
		c.Do(acts[0])
		if len(*seen) == 5 {
			break
		}
	}
	assert.Equal(t, []string{"absent", "not ready", "not ready", "not ready", "not ready"}, *seen)
	assert.Equal(t, start+5, c.Now())
	assert.Contains(t, strings.Join(traceLines(c), "\n"), "error: child not ready in time")
}

// TestAWaitingReconcileIsTheSameOnReplay: the same run twice gives the
// same trace, byte for byte.
func TestAWaitingReconcileIsTheSameOnReplay(t *testing.T) {
	a, _ := waitWorld(t, 5, true)
	runUntilQuiet(a, 10)
	b, _ := waitWorld(t, 5, true)
	runUntilQuiet(b, 10)
	assert.Equal(t, traceLines(a), traceLines(b))
}

// TestACrashWhileWaitingUnwindsTheReconcile: a crash that strikes during the
// wait ends it; the reconcile writes nothing more, the controller is down,
// and it comes back after its down time.
func TestACrashWhileWaitingUnwindsTheReconcile(t *testing.T) {
	c, seen := waitWorld(t, 5, false)
	start := c.Now()
	c.At(start+2, "fault", "crash", func() { require.NoError(t, c.Faults().Crash("maker", 3)) })
	for range 200 {
		acts := c.Enabled(nil)
		if len(acts) == 0 || c.Now() >= start+5 {
			break
		}
		c.Do(acts[0])
	}
	assert.Equal(t, []string{"absent", "not ready"}, *seen, "the poll stopped where the crash struck")
	lines := strings.Join(traceLines(c), "\n")
	assert.Contains(t, lines, "crashed mid-reconcile")
	assert.NotContains(t, lines, "child not ready in time", "the reconcile never reached its end")
	assert.Contains(t, lines, "t=2 maker reconcile App default/a [fault: maker crashed mid-reconcile]")
	assert.Contains(t, lines, "t=5 maker restart", "it came back after its down time")
}

// TestWaitOutsideAReconcileIsAnError: an event handler cannot wait, and a
// wait cannot be negative.
func TestWaitOutsideAReconcileIsAnError(t *testing.T) {
	c := NewCluster(Config{})
	var errs []error
	require.NoError(t, c.AddController(Controller{
		Name: "edge", For: "Pod",
		NewHandler: func(cl Client) Handler {
			return HandlerFuncs{AddFunc: func(*Object) { errs = append(errs, cl.Wait(1)) }}
		},
	}))
	require.NoError(t, c.AddController(Controller{
		Name: "neg", For: "Pod",
		NewReconciler: func(cl Client) Reconciler {
			return ReconcilerFunc(func(Request) (Result, error) {
				errs = append(errs, cl.Wait(-1))
				return Result{}, nil
			})
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	runUntilQuiet(c, 0)
	require.Len(t, errs, 2)
	assert.ErrorContains(t, errs[0], "edge: Wait outside a reconcile")
	assert.ErrorContains(t, errs[1], "neg: wait of -1 ticks")
}

// TestATimeTravelWhileWaitingRelistsBehind: a time travel that strikes
// during a wait unwinds the reconcile like a crash, and the controller,
// back after its down time, still relists from the server behind.
func TestATimeTravelWhileWaitingRelistsBehind(t *testing.T) {
	c, seen := waitWorld(t, 5, false)
	start := c.Now()
	c.At(start+2, "fault", "timetravel", func() { require.NoError(t, c.Faults().TimeTravel("maker", 1, 3)) })
	for range 200 {
		acts := c.Enabled(nil)
		if len(acts) == 0 || c.Now() > start+5 {
			break
		}
		c.Do(acts[0])
	}
	require.GreaterOrEqual(t, len(*seen), 2)
	assert.Equal(t, []string{"absent", "not ready"}, (*seen)[:2], "the poll stopped where the fault struck")
	lines := strings.Join(traceLines(c), "\n")
	assert.Contains(t, lines, "once its waiting reconcile unwinds")
	assert.Contains(t, lines, "t=5 maker restart")
	assert.Len(t, c.Faults().Travels(), 2, "the restart relisted both kinds from the server behind")
}
