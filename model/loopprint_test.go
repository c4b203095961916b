package model_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestALoopFingerprintIsBlindToNumbering: a status written "a", "b", then
// "a" again, each write delivered and reconciled, comes back to the state it was in but for the
// resourceVersions the server gave it: the loop fingerprints are equal,
// the fingerprints are not, and "b" differs in both. A second object made
// after the first one has another UID and resourceVersion, and its state
// is another.
func TestALoopFingerprintIsBlindToNumbering(t *testing.T) {
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(model.Controller{Name: "noop", For: "Flag", NewReconciler: func(model.Client) model.Reconciler {
		return model.StatelessFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
	}}))
	require.NoError(t, c.Apply(&model.Object{Kind: "Flag", Namespace: "default", Name: "web"}))
	require.NoError(t, c.Start())
	set := func(phase string) (full, loop uint64) {
		o, err := c.Server().Get("Flag", "default", "web")
		require.NoError(t, err)
		o.Status.Set("phase", phase)
		require.NoError(t, c.Server().UpdateStatus("test", o))
		for c.Busy() {
			c.Do(c.Enabled(nil)[0])
		}
		return c.Fingerprint(), c.LoopFingerprint()
	}
	fa, la := set("a")
	fb, lb := set("b")
	fa2, la2 := set("a")
	assert.Equal(t, la, la2, "the same state, renumbered")
	assert.NotEqual(t, fa, fa2)
	assert.NotEqual(t, la, lb)
	assert.NotEqual(t, fa, fb)

	require.NoError(t, c.Apply(&model.Object{Kind: "Flag", Namespace: "default", Name: "other"}))
	assert.NotEqual(t, la2, c.LoopFingerprint())
}

// TestALoopFingerprintWithoutClockIsBlindToTheClock: the same status
// written again ten ticks later is the same state without the clock,
// though not the same loop state (the clock moved); a status that
// differs, or an object made since, is another state.
func TestALoopFingerprintWithoutClockIsBlindToTheClock(t *testing.T) {
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(model.Controller{Name: "noop", For: "Flag", NewReconciler: func(model.Client) model.Reconciler {
		return model.StatelessFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
	}}))
	require.NoError(t, c.Apply(&model.Object{Kind: "Flag", Namespace: "default", Name: "web"}))
	require.NoError(t, c.Start())
	set := func(phase string) (loop, noClock uint64) {
		c.At(c.Now()+10, "test", "ten ticks later", func() {})
		for c.Busy() || c.NextTimer() != nil {
			c.Do(c.Enabled(nil)[0])
		}
		o, err := c.Server().Get("Flag", "default", "web")
		require.NoError(t, err)
		o.Status.Set("phase", phase)
		require.NoError(t, c.Server().UpdateStatus("test", o))
		for c.Busy() {
			c.Do(c.Enabled(nil)[0])
		}
		return c.LoopFingerprint(), c.LoopFingerprintWithoutClock()
	}
	la, na := set("a")
	lb, nb := set("b")
	la2, na2 := set("a")
	assert.NotEqual(t, la, la2, "the clock moved")
	assert.Equal(t, na, na2, "the same state ten ticks later")
	assert.NotEqual(t, na, nb)
	assert.NotEqual(t, la, lb)

	require.NoError(t, c.Apply(&model.Object{Kind: "Flag", Namespace: "default", Name: "other"}))
	assert.NotEqual(t, na2, c.LoopFingerprintWithoutClock())
}
