package model

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is an edge-triggered handler that records its notifications.
type recorder struct {
	c     Client
	calls []string
}

func (r *recorder) OnAdd(o *Object) { r.calls = append(r.calls, "add "+o.Name) }
func (r *recorder) OnUpdate(old, new *Object) {
	r.calls = append(r.calls, fmt.Sprintf("update %s %s→%s %d→%d", new.Name, old.UID, new.UID, old.ResourceVersion, new.ResourceVersion))
}
func (r *recorder) OnDelete(o *Object, unknown bool) {
	r.calls = append(r.calls, fmt.Sprintf("delete %s unknown=%v", o.Name, unknown))
}

// recordingCluster runs one edge-triggered controller "rec" watching Pods
// and returns a pointer to its current handler (replaced on restart).
func recordingCluster(t *testing.T, cfg Config, resync Time) (*Cluster, **recorder) {
	t.Helper()
	c := NewCluster(cfg)
	var current *recorder
	require.NoError(t, c.AddController(Controller{
		Name:         "rec",
		For:          "Pod",
		ResyncPeriod: resync,
		NewHandler: func(cl Client) Handler {
			current = &recorder{c: cl}
			return current
		},
	}))
	return c, &current
}

// deliverAll delivers every pending event.
func deliverAll(c *Cluster) {
	for {
		acts := c.Enabled(nil)
		if len(acts) == 0 || (acts[0].Kind != ActDeliver && acts[0].Kind != ActRewatch) {
			return
		}
		c.Do(acts[0])
	}
}

func TestStartListsThenWatches(t *testing.T) {
	c, rec := recordingCluster(t, Config{}, 0)
	require.NoError(t, c.Apply(pod("a"), pod("b")))
	require.NoError(t, c.Start())
	assert.Equal(t, []string{"add a", "add b"}, (*rec).calls)
	require.NoError(t, c.Outside("user").Create(pod("c")))
	deliverAll(c)
	assert.Equal(t, []string{"add a", "add b", "add c"}, (*rec).calls)
}

func TestDropLosesTheNotificationNotTheCacheUpdate(t *testing.T) {
	c, rec := recordingCluster(t, Config{}, 0)
	require.NoError(t, c.Start())
	require.NoError(t, c.Faults().ArmDrop("rec", "Pod"))
	require.NoError(t, c.Outside("user").Create(pod("a")))
	deliverAll(c)
	assert.Empty(t, (*rec).calls, "the handler was not told")
	got, err := (*rec).c.Get("Pod", "default", "a")
	require.NoError(t, err, "the cache applied the event")
	assert.Equal(t, "a", got.Name)
	require.Len(t, c.Faults().Dropped(), 1)
	assert.Equal(t, Added, c.Faults().Dropped()[0].Event.Type)
}

func TestResyncReplaysTheCacheWithoutReadingTheServer(t *testing.T) {
	c, rec := recordingCluster(t, Config{}, 10)
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	// The server moves on; the informer has not seen it yet.
	p, _ := c.Server().Get("Pod", "default", "a")
	p.Spec.Set("image", "v2")
	require.NoError(t, c.Outside("user").Update(p))
	(*rec).calls = nil
	c.Do(Action{Kind: ActTimer}) // resync starts
	assert.Empty(t, (*rec).calls, "the replay is one delivery step per object")
	c.Do(Action{Kind: ActDeliver})
	require.Len(t, (*rec).calls, 1)
	assert.Equal(t, "update a uid-1→uid-1 1→1", (*rec).calls[0], "old == new, the cached version")
}

func TestExpiredWatchRelistsWithTombstonesAndNewUIDs(t *testing.T) {
	c, rec := recordingCluster(t, Config{HistoryWindow: 2}, 0)
	require.NoError(t, c.Apply(pod("gone"), pod("reborn"), pod("kept")))
	require.NoError(t, c.Start())
	(*rec).calls = nil
	require.NoError(t, c.Faults().BreakWatch("rec", "Pod"))

	out := c.Outside("user")
	require.NoError(t, out.Delete(Ref{"Pod", "default", "gone"}, DeleteOptions{}))
	require.NoError(t, out.Delete(Ref{"Pod", "default", "reborn"}, DeleteOptions{}))
	require.NoError(t, out.Create(pod("reborn")))
	for i := range 4 { // push the history past the informer's resourceVersion
		p, _ := out.Get("Pod", "default", "kept")
		p.Spec.Set("n", int64(i))
		require.NoError(t, out.Update(p))
	}
	acts := c.Enabled(nil)
	require.Equal(t, ActRewatch, acts[0].Kind)
	c.Do(acts[0])
	assert.Contains(t, c.Trace().Records[len(c.Trace().Records)-1].Notes[0].String(), "expired: relisted")
	assert.Equal(t, []string{
		"update kept uid-3→uid-3 3→10",
		"update reborn uid-2→uid-4 2→6",
		"delete gone unknown=true",
	}, (*rec).calls)
}

func TestRestartRelistDeliversAddForEveryObject(t *testing.T) {
	c, rec := recordingCluster(t, Config{}, 0)
	require.NoError(t, c.Apply(pod("a"), pod("b")))
	require.NoError(t, c.Start())
	first := *rec
	require.NoError(t, c.Faults().Crash("rec", 3))
	assert.False(t, c.Up("rec"))
	assert.Empty(t, c.Enabled(nil)[:0])
	c.Do(Action{Kind: ActTimer}) // restart after 3 ticks
	assert.True(t, c.Up("rec"))
	assert.Equal(t, Time(3), c.Now())
	assert.NotSame(t, first, *rec, "a restart builds a fresh handler: memory is lost")
	assert.Equal(t, []string{"add a", "add b"}, (*rec).calls)
}

func TestHandlersGetPrivateCopies(t *testing.T) {
	c := NewCluster(Config{})
	var cl Client
	require.NoError(t, c.AddController(Controller{
		Name: "mutator", For: "Pod",
		NewHandler: func(x Client) Handler {
			cl = x
			return HandlerFuncs{AddFunc: func(o *Object) { o.Labels = o.Labels.With("app", "mutated") }}
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	got, err := cl.Get("Pod", "default", "a")
	require.NoError(t, err)
	assert.Equal(t, "web", got.Labels.Value("app"))
	assert.Equal(t, "web", c.Server().Peek(Ref{"Pod", "default", "a"}).Labels.Value("app"))
}

func TestClientRefusesUnwatchedKinds(t *testing.T) {
	c, rec := recordingCluster(t, Config{}, 0)
	require.NoError(t, c.Start())
	_, err := (*rec).c.Get("Secret", "default", "x")
	assert.ErrorContains(t, err, "does not watch it")
}

// panickingChooser stands in for rapid stopping a run from inside a draw.
type panickingChooser struct{}

type stopRun struct{}

func (panickingChooser) Choose(int, string) int { panic(stopRun{}) }

type choosyActor struct{}

func (choosyActor) Name() string { return "choosy" }
func (choosyActor) Act(o *Outside) error {
	o.Choose(3, "pick")
	return nil
}

func TestPanicsFromTheSourcePassThroughTheGuard(t *testing.T) {
	c, _ := recordingCluster(t, Config{}, 0)
	require.NoError(t, c.AddActor(choosyActor{}, 1))
	require.NoError(t, c.Start())
	c.SetChooser(panickingChooser{})
	assert.PanicsWithValue(t, stopRun{}, func() { c.Do(Action{Kind: ActActor}) })
	assert.Nil(t, c.Panic(), "a draw that stops the run is not the actor's panic")
}
