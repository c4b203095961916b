package faults_test

import (
	"encoding/json"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childWorld is a started cluster with a ReplicaSet web that controls two
// pods, a pod a deleted owner once controlled, a pod no one owns and a
// ConfigMap controlled by web too.
func childWorld(t *testing.T) *model.Cluster {
	t.Helper()
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(model.Controller{Name: "idle", For: "ReplicaSet", NewReconciler: func(model.Client) model.Reconciler {
		return model.ReconcilerFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
	}}))
	require.NoError(t, c.Apply(&model.Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}))
	require.NoError(t, c.Start())
	web := c.State().Get("ReplicaSet", "default", "web")
	out := c.Outside("setup")
	for _, name := range []string{"web-a", "web-b"} {
		require.NoError(t, out.Create(&model.Object{Kind: "Pod", Namespace: "default", Name: name, OwnerReferences: []model.OwnerReference{model.NewOwnerReference(web)}}))
	}
	require.NoError(t, out.Create(&model.Object{Kind: "ConfigMap", Namespace: "default", Name: "web-config", OwnerReferences: []model.OwnerReference{model.NewOwnerReference(web)}}))
	gone := model.OwnerReference{Kind: "ReplicaSet", Name: "old", UID: "uid-of-a-deleted-owner", Controller: true}
	require.NoError(t, out.Create(&model.Object{Kind: "Pod", Namespace: "default", Name: "orphan", OwnerReferences: []model.OwnerReference{gone}}))
	require.NoError(t, out.Create(&model.Object{Kind: "Pod", Namespace: "default", Name: "lone"}))
	return c
}

// TestAnEditDeletesALiveChildOfAController: the owned-children edit
// deletes, by Pick in kind then key order, only objects whose controller
// owner exists: never the web ReplicaSet itself, a pod whose owner is
// gone, or a pod no one owns.
func TestAnEditDeletesALiveChildOfAController(t *testing.T) {
	for pick, want := range []string{"ConfigMap/web-config", "Pod/web-a", "Pod/web-b", "ConfigMap/web-config"} {
		c := childWorld(t)
		edit := faults.Edit{Target: faults.OwnedChildren, Pick: pick}
		require.NoError(t, edit.Apply(c))
		var left []string
		for _, kind := range []string{"ConfigMap", "Pod", "ReplicaSet"} {
			for _, o := range c.State().List(kind, model.ListOptions{}) {
				left = append(left, kind+"/"+o.Name)
			}
		}
		assert.NotContains(t, left, want, "pick %d", pick)
		assert.Len(t, left, 5, "pick %d deletes one object: %v", pick, left)
		assert.Contains(t, left, "Pod/orphan")
		assert.Contains(t, left, "Pod/lone")
		assert.Contains(t, left, "ReplicaSet/web")
	}
	c := childWorld(t)
	require.NoError(t, faults.Edit{Target: faults.EditTarget{Resource: "Pod", Owned: true}, Pick: 1}.Apply(c))
	assert.Nil(t, c.State().Get("Pod", "default", "web-b"), "an owned target of one kind picks among its children alone")
	assert.Equal(t, "edit: delete child #2 (of any kind, that a controller owns)", faults.Edit{Target: faults.OwnedChildren, Pick: 2}.String())
}

// TestAnEditWithNoChildIsANote: with no child alive, the edit does
// nothing but say so.
func TestAnEditWithNoChildIsANote(t *testing.T) {
	c := editWorld(t)
	before := c.Fingerprint()
	require.NoError(t, faults.Edit{Target: faults.OwnedChildren}.Apply(c))
	assert.Equal(t, before, c.Fingerprint())
}

// TestOwnedChildrenNeedNoDeclaredTarget: a topology whose only edit
// target is OwnedChildren draws edits, and a schedule of them round-trips
// through JSON and fits; an owned target with a path, or a rival of one,
// is refused.
func TestOwnedChildrenNeedNoDeclaredTarget(t *testing.T) {
	topo := faults.Topology{Targets: []faults.Target{{Controller: "a", Kinds: []string{"Pod"}}}, Edits: []faults.EditTarget{faults.OwnedChildren}}
	mix := faults.Mix{faults.KindEdit}
	require.NoError(t, faults.Check(mix, topo, budget))
	gen := faults.Schedules(mix, topo, budget)
	drew := false
	for seed := range 50 {
		s := gen.Example(seed)
		require.NoError(t, s.Fits(mix, topo, budget))
		data, err := json.Marshal(s)
		require.NoError(t, err)
		var back faults.Schedule
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, s.String(), back.String())
		require.NoError(t, back.Fits(mix, topo, budget))
		drew = drew || len(s) > 0
	}
	assert.True(t, drew)
	bad := topo
	bad.Edits = []faults.EditTarget{{Owned: true, Path: "spec.replicas", Max: 3}}
	assert.Error(t, faults.Check(mix, bad, budget))
	bad.Rivals = []faults.EditTarget{faults.OwnedChildren}
	assert.Error(t, faults.Check(faults.Mix{faults.KindRival}, bad, budget))
	var s faults.Schedule
	assert.Error(t, json.Unmarshal([]byte(`[{"at":1,"kind":"rival","owned":true,"path":"spec.x","max":2}]`), &s), "a rival takes no owned")
}

// TestFailuresAreDrawnUpToTheBudgetsBound: apierror's count goes past the
// fixed 3 up to MaxFailures, and a file whose count is past the bound
// does not fit.
func TestFailuresAreDrawnUpToTheBudgetsBound(t *testing.T) {
	mix := faults.Mix{faults.KindAPIError}
	b := budget
	b.MaxFailures = 12
	gen := faults.Schedules(mix, topo, b)
	most := 0
	for seed := range 300 {
		for _, f := range gen.Example(seed) {
			most = max(most, f.Fault.(faults.APIError).Count)
		}
	}
	assert.Greater(t, most, 3, "counts past the fixed default")
	assert.LessOrEqual(t, most, 12)
	over := faults.Schedule{{At: 1, Fault: faults.APIError{Controller: "a", Error: faults.ErrConflict, Count: 13}}}
	assert.ErrorContains(t, over.Fits(mix, topo, b), "count 13: must be in [1, 12]")
	within := faults.Schedule{{At: 1, Fault: faults.APIError{Controller: "a", Error: faults.ErrConflict, Count: 4}}}
	assert.NoError(t, within.Fits(mix, topo, b))
	assert.Error(t, within.Fits(mix, topo, budget), "without MaxFailures, the bound is 3")
	b.MaxFailures = -1
	assert.Error(t, faults.Check(mix, topo, b))
}

// TestHalfTheFaultsStrikeWhileTheControllersWork: with Busy, about half
// the faults' times are drawn within it, far more than its share of the
// horizon; without, they spread over the horizon.
func TestHalfTheFaultsStrikeWhileTheControllersWork(t *testing.T) {
	mix := faults.Mix{faults.KindDrop}
	share := func(b faults.Budget) float64 {
		gen := faults.Schedules(mix, topo, b)
		in, all := 0, 0
		for seed := range 1000 {
			for _, f := range gen.Example(seed) {
				all++
				if f.At <= 5 {
					in++
				}
			}
		}
		return float64(in) / float64(all)
	}
	b := faults.Budget{MaxFaults: 3, Horizon: 200, MaxDown: 7}
	without := share(b)
	b.Busy = 5
	with := share(b)
	assert.Greater(t, with, 0.45, "share of faults in [0, 5] with Busy 5")
	assert.Greater(t, with, without+0.2, "share without Busy: %.2f", without)
	b.Busy = -1
	assert.Error(t, faults.Check(mix, topo, b))
}
