package properties

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

var cacheRef = model.Ref{Kind: "Cache", Namespace: "default", Name: "web"}

// historyWorld builds a cluster holding the Cache default/web and, owned
// by it, one pod per image with a generated name, created in the given
// order; junk creates and deletes that many pods first, so that names,
// UIDs and resourceVersions all move.
func historyWorld(t *testing.T, junk int, images ...string) model.State {
	t.Helper()
	c := model.NewCluster(model.Config{})
	out := c.Outside("test")
	for range junk {
		pod := &model.Object{Kind: "Pod", Namespace: "default", GenerateName: "junk-"}
		require.NoError(t, out.Create(pod))
		require.NoError(t, out.Delete(pod.Ref(), model.DeleteOptions{}))
	}
	cache := &model.Object{Kind: "Cache", Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{"replicas": int64(len(images))}),
		Status: model.NewFields(model.Values{"replicas": int64(len(images)), "observedGeneration": int64(1 + junk), "observedAt": int64(junk)})}
	require.NoError(t, c.Apply(cache))
	owner, err := out.Get("Cache", "default", "web")
	require.NoError(t, err)
	for _, image := range images {
		pod := &model.Object{Kind: "Pod", Namespace: "default", GenerateName: "web-", OwnerReferences: []model.OwnerReference{model.NewOwnerReference(owner)},
			Spec: model.NewFields(model.Values{"image": image})}
		require.NoError(t, out.Create(pod))
		// A grandchild, owned by the pod, named after it.
		claim := &model.Object{Kind: "Claim", Namespace: "default", Name: pod.Name + "-data", OwnerReferences: []model.OwnerReference{model.NewOwnerReference(pod)},
			Spec: model.NewFields(model.Values{"size": int64(1)})}
		require.NoError(t, out.Create(claim))
	}
	return c.State()
}

func TestStatesThatDifferOnlyInGeneratedNamesUIDsAndVersionsCompareEqual(t *testing.T) {
	ignore := ignoring("status.observedAt")
	a, ok := captureState(historyWorld(t, 0, "v1", "v2"), cacheRef, ignore)
	require.True(t, ok)
	b, ok := captureState(historyWorld(t, 3, "v2", "v1"), cacheRef, ignore)
	require.True(t, ok)
	assert.Empty(t, ignore.diffStates(a, b), "generated names, UIDs, resourceVersions, creation order and observedGeneration are normalized, observedAt ignored")
	require.Len(t, a, 5, "the target, its two pods, and their claims, owned transitively")
	var keys []string
	for _, o := range a {
		keys = append(keys, o.key)
	}
	assert.Contains(t, keys, "Pod default/web-#1")
	assert.Contains(t, keys, "Pod default/web-#2")

	// Without the ignore path, observedAt differs, field by field.
	a, _ = captureState(historyWorld(t, 0, "v1", "v2"), cacheRef, ignoring())
	b, _ = captureState(historyWorld(t, 3, "v2", "v1"), cacheRef, ignoring())
	assert.Equal(t, []string{"Cache default/web status.observedAt: 3 after the transitions, 0 in a fresh cluster"}, ignoring().diffStates(a, b))
}

// ignoring returns the comparer of inputs that ignore paths on every
// object.
func ignoring(paths ...string) *comparer {
	in := &Inputs{}
	for _, p := range paths {
		in.Ignore = append(in.Ignore, Ignore{Path: p})
	}
	return newComparer(in)
}

func TestADifferentChildShowsFieldByField(t *testing.T) {
	want, _ := captureState(historyWorld(t, 0, "v2", "v2"), cacheRef, ignoring("status.observedAt"))
	got, _ := captureState(historyWorld(t, 1, "v1", "v2"), cacheRef, ignoring("status.observedAt"))
	assert.Equal(t, []string{`Pod default/web-#1 spec.image: "v1" after the transitions, "v2" in a fresh cluster`}, ignoring().diffStates(want, got))

	want, _ = captureState(historyWorld(t, 0, "v2", "v2"), cacheRef, ignoring("status"))
	more, _ := captureState(historyWorld(t, 0, "v2", "v2", "v2"), cacheRef, ignoring("status"))
	assert.Equal(t, []string{
		"Cache default/web spec.replicas: 3 after the transitions, 2 in a fresh cluster",
		"Claim default/web-#3-data: after the transitions, not in a fresh cluster",
		"Pod default/web-#3: after the transitions, not in a fresh cluster",
	}, ignoring().diffStates(want, more))
}

func TestTransitionsRoundTripThroughJSON(t *testing.T) {
	ts := Transitions{
		model.NewFields(model.Values{"replicas": int64(3), "image": "v2", "tier": "gold", "on": true}),
		model.NewFields(nil),
	}
	data, err := json.Marshal(ts)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"image":"v2","on":true,"replicas":3,"tier":"gold"},{}]`, string(data))
	var back Transitions
	require.NoError(t, json.Unmarshal(data, &back))
	require.Len(t, back, 2)
	assert.True(t, ts[0].Equal(back[0]), "%v", back[0])
	assert.Equal(t, 0, back[1].Len())

	for in, want := range map[string]string{
		`[{"replicas":1.5}]`: "not an integer",
		`[{"a":{"b":1}}]`:    "unsupported value",
		`[null]`:             "null spec",
		`[{"":1}]`:           "empty field path",
	} {
		assert.ErrorContains(t, json.Unmarshal([]byte(in), &back), want, in)
	}
}

func TestInputsAreValidated(t *testing.T) {
	spec := rapid.Just(model.Fields{})
	build := func(model.Config) (*model.Cluster, error) { return model.NewCluster(model.Config{}), nil }
	sc := Scenario{Name: "x", Build: build, Inputs: &Inputs{Spec: spec, Max: -1, Ignore: []Ignore{{Path: "status."}}}}
	err := sc.Validate()
	assert.ErrorContains(t, err, "needs a kind and a name")
	assert.ErrorContains(t, err, "negative Max")
	assert.ErrorContains(t, err, `bad path "status.": an empty field name`)
	sc.Inputs = &Inputs{Target: cacheRef}
	assert.ErrorContains(t, sc.Validate(), "no Spec generator")

	sc.Inputs = nil
	_, err = Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{model.Fields{}}})
	assert.ErrorContains(t, err, "declares no inputs, yet the run was given 1 transitions")
}

// firstSight panics when the first Cache it reconciles already has a
// tier: reached through a transition, the tier is harmless; given from the
// start, it panics.
func firstSight() model.Controller {
	return model.Controller{
		Name: "first-sight",
		For:  "Cache",
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				obj, err := c.Get("Cache", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				if obj.Status.Len() > 0 {
					return model.Result{}, nil
				}
				if obj.Spec.Has("tier") {
					panic("a tier before the first status")
				}
				obj.Status = model.NewFields(model.Values{"seen": true})
				return model.Result{}, c.UpdateStatus(obj)
			})
		},
	}
}

// A reference run that fails is reported with its own verdict: the final
// spec is an input the controller mishandles even without a history.
func TestAFailingReferenceRunIsReportedWithItsVerdict(t *testing.T) {
	tier := model.NewFields(model.Values{"tier": "gold"})
	sc := Scenario{
		Name: "first-sight",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(firstSight()); err != nil {
				return nil, err
			}
			return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web"})
		},
		Inputs: &Inputs{Target: cacheRef, Spec: rapid.Just(tier)},
	}
	out, err := Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{tier}})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1, "the transition was applied after the first reconcile")
	require.NotNil(t, out.Failure)
	assert.Equal(t, ControllerPanic, out.Failure.Verdict)
	assert.Contains(t, out.Failure.Summary, "a fresh cluster whose Cache default/web has the final spec from the start fails: ")
	assert.Contains(t, out.Failure.Report(nil), "inputs (1 transition of Cache default/web):")

	memo := newReferenceMemo()
	for range 3 {
		_, err := Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{tier}, refs: memo})
		require.NoError(t, err)
	}
	assert.Equal(t, 1, memo.misses, "one reference run per final spec")
	assert.Equal(t, 2, memo.hits)
}

// TestOldRevisionsOfADeploymentAreLeftOut: a ReplicaSet its Deployment has
// scaled to zero is revision history, kept for rollbacks, and is not
// compared; one owned by something else is.
func TestOldRevisionsOfADeploymentAreLeftOut(t *testing.T) {
	world := func(old, ownedByCache bool) model.State {
		c := model.NewCluster(model.Config{})
		out := c.Outside("test")
		require.NoError(t, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web"}))
		cache, err := out.Get("Cache", "default", "web")
		require.NoError(t, err)
		require.NoError(t, out.Create(&model.Object{Kind: "Deployment", Namespace: "default", Name: "web",
			OwnerReferences: []model.OwnerReference{model.NewOwnerReference(cache)}, Spec: model.NewFields(model.Values{"replicas": int64(2), "template.image": "v2"})}))
		dep, err := out.Get("Deployment", "default", "web")
		require.NoError(t, err)
		rs := func(name, image string, replicas int64, owner *model.Object) *model.Object {
			return &model.Object{Kind: "ReplicaSet", Namespace: "default", Name: name, OwnerReferences: []model.OwnerReference{model.NewOwnerReference(owner)},
				Spec: model.NewFields(model.Values{"replicas": replicas, "template.image": image})}
		}
		require.NoError(t, out.Create(rs("web-new", "v2", 2, dep)))
		switch {
		case old && ownedByCache:
			require.NoError(t, out.Create(rs("web-old", "v1", 0, cache)))
		case old:
			require.NoError(t, out.Create(rs("web-old", "v1", 0, dep)))
		}
		return c.State()
	}
	want, _ := captureState(world(false, false), cacheRef, ignoring())
	got, _ := captureState(world(true, false), cacheRef, ignoring())
	assert.Empty(t, ignoring().diffStates(want, got), "an old revision at zero replicas is history")
	assert.Len(t, got, 3, "the Cache, its Deployment and the current ReplicaSet")
	got, _ = captureState(world(true, true), cacheRef, ignoring())
	assert.Equal(t, []string{"ReplicaSet default/web-old: after the transitions, not in a fresh cluster"}, ignoring().diffStates(want, got),
		"a ReplicaSet at zero replicas that no Deployment controls is compared")
}

// TestTheReferenceMemoKeepsTheNewestRuns: a full memo evicts its oldest
// entry, so its size stays bounded in a long campaign.
func TestTheReferenceMemoKeepsTheNewestRuns(t *testing.T) {
	m := newReferenceMemo()
	for i := range memoCapacity + 1 {
		m.store(strconv.Itoa(i), reference{})
	}
	assert.Len(t, m.runs, memoCapacity)
	assert.Len(t, m.order, memoCapacity)
	assert.NotContains(t, m.runs, "0", "the oldest went")
	assert.Contains(t, m.runs, strconv.Itoa(memoCapacity), "the newest stays")
}
