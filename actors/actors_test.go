package actors_test

import (
	"hash/fnv"
	"testing"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// world is a started cluster with an idle controller, objs applied and
// actor added for two moves.
func world(t *testing.T, actor model.Actor, objs ...*model.Object) *model.Cluster {
	t.Helper()
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(model.Controller{Name: "idle", For: "ConfigMap", NewReconciler: func(model.Client) model.Reconciler {
		return model.ReconcilerFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
	}}))
	require.NoError(t, c.Apply(objs...))
	require.NoError(t, c.AddActor(actor, 2))
	require.NoError(t, c.Start())
	return c
}

// act runs one move of the actor and returns the step's record.
func act(t *testing.T, c *model.Cluster) string {
	t.Helper()
	for _, a := range c.Enabled(nil) {
		if a.Kind == model.ActActor {
			c.Do(a)
			recs := c.Trace().Records
			return recs[len(recs)-1].String()
		}
	}
	t.Fatal("the actor has no move")
	return ""
}

func TestRecreatorRecreatesUnderTheSameNameWithANewUID(t *testing.T) {
	cm := &model.Object{Kind: "ConfigMap", Namespace: "default", Name: "cm", Labels: model.NewLabels(map[string]string{"team": "db"}),
		Spec: model.NewFields(model.Values{"data.color": "red"})}
	c := world(t, &actors.Recreator{Kind: "ConfigMap"}, cm)
	before := c.State().Get("ConfigMap", "default", "cm")
	require.NotNil(t, before)

	rec := act(t, c)
	assert.Equal(t, "recreator", (&actors.Recreator{}).Name())
	assert.Contains(t, rec, "recreator act => delete ConfigMap default/cm@")
	assert.Contains(t, rec, "; create ConfigMap default/cm@")
	after := c.State().Get("ConfigMap", "default", "cm")
	require.NotNil(t, after)
	assert.NotEqual(t, before.UID, after.UID, "a new incarnation")
	assert.Equal(t, "red", after.Field("spec.data.color"))
	assert.Equal(t, "db", after.Field("metadata.labels.team"))
}

// TestRecreatorWaitsForAnObjectHeldByFinalizers: a delete that finalizers
// hold leaves the object deleting, and the recreator creates it again on a
// later move, once it is gone.
func TestRecreatorWaitsForAnObjectHeldByFinalizers(t *testing.T) {
	cm := &model.Object{Kind: "ConfigMap", Namespace: "default", Name: "cm", Finalizers: []string{"example.com/keep"}}
	rec := &actors.Recreator{Actor: "gitops", Kind: "ConfigMap"}
	c := world(t, rec, cm)
	before := c.State().Get("ConfigMap", "default", "cm")

	line := act(t, c)
	assert.Contains(t, line, "[ConfigMap default/cm is held by finalizers: not recreated]")
	assert.NotContains(t, line, "; create", "nothing is created yet")
	held := c.State().Get("ConfigMap", "default", "cm")
	require.NotNil(t, held)
	assert.Equal(t, before.UID, held.UID)
	assert.True(t, held.Deleting())

	assert.NotContains(t, c.Unfingerprinted(), "gitops", "the recreator declares its memory")
	waiting, idle := fnv.New64a(), fnv.New64a()
	rec.Fingerprint(waiting)
	(&actors.Recreator{Actor: "gitops", Kind: "ConfigMap"}).Fingerprint(idle)
	assert.NotEqual(t, idle.Sum64(), waiting.Sum64(), "what it waits to recreate is in its fingerprint")

	done := held.DeepCopy()
	done.Finalizers = nil
	require.NoError(t, c.Server().Update("admin", done))
	require.Nil(t, c.State().Get("ConfigMap", "default", "cm"), "gone once its finalizer is")

	line = act(t, c)
	assert.Contains(t, line, "gitops act => create ConfigMap default/cm@")
	after := c.State().Get("ConfigMap", "default", "cm")
	require.NotNil(t, after)
	assert.NotEqual(t, before.UID, after.UID, "a new incarnation")
}

func TestRecreatorWithNothingToPickDoesNothing(t *testing.T) {
	c := world(t, &actors.Recreator{Kind: "Secret"}, &model.Object{Kind: "ConfigMap", Namespace: "default", Name: "cm"})
	rec := act(t, c)
	assert.NotContains(t, rec, "=>")
	assert.NotNil(t, c.State().Get("ConfigMap", "default", "cm"))
}
