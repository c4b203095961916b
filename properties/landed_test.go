package properties

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// toucher is a scenario actor, not the inputs: it labels the Cache once,
// in the history run only (a reference run stops its actors).
type toucher struct{}

func (toucher) Name() string { return "toucher" }
func (toucher) Act(o *model.Outside) error {
	obj, err := o.Get("Cache", "default", "web")
	if err != nil {
		return err
	}
	obj.Labels = map[string]string{"touched": "yes"}
	return o.Update(obj)
}

// mirror copies the Cache's spec.replicas and its "touched" label into its
// status, and writes status.failed from a choice it draws once (as a
// kubelet draws whether a pod fails), labelled label.
func mirror(c *model.Cluster, label string) model.Controller {
	return model.Controller{
		Name: "mirror",
		For:  "Cache",
		NewReconciler: func(cl model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				obj, err := cl.Get("Cache", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				failed := obj.Status.Value("failed")
				if failed == nil && label != "" {
					failed = c.Choose(2, label) == 1
				}
				want := model.NewFields(model.Values{"replicas": obj.Spec.Int("replicas"), "touched": obj.Labels["touched"], "failed": failed})
				if obj.Status.Equal(want) {
					return model.Result{}, nil
				}
				obj.Status = want
				return model.Result{}, cl.UpdateStatus(obj)
			})
		},
	}
}

// refuseBad is an admission step that rejects a Cache whose spec says
// bad, as a CRD's validation would.
func refuseBad(_ string, _ model.Verb, _, obj *model.Object) error {
	if obj.Kind == "Cache" && obj.Spec.Has("bad") {
		return &model.StatusError{Reason: model.ReasonInvalid, Message: "spec.bad: Forbidden"}
	}
	return nil
}

func mirrorScenario(label string, actor bool) Scenario {
	return Scenario{
		Name: "mirror",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			c.Server().AddAdmission(refuseBad)
			if err := c.AddController(mirror(c, label)); err != nil {
				return nil, err
			}
			if actor {
				if err := c.AddActor(toucher{}, 1); err != nil {
					return nil, err
				}
			}
			return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{"replicas": int64(1)})})
		},
		Inputs: &Inputs{Target: cacheRef, Spec: rapid.Just(model.Fields{})},
	}
}

// answer answers every choice labelled label with v, every other with 0.
type answer struct {
	label string
	v     int
}

func (a answer) Choose(n int, label string) int {
	if label == a.label && a.v < n {
		return a.v
	}
	return 0
}

// TestARefusedTransitionIsNoTransition: when the API server refused every
// transition, the final spec is the first one and the oracle has nothing
// to judge, even though the history differs from a fresh cluster in what
// another actor did (the CronJob tutorial of issue 35). Without the rule,
// this run is reported history-dependent (seen).
func TestARefusedTransitionIsNoTransition(t *testing.T) {
	sc := mirrorScenario("", true)
	bad := model.NewFields(model.Values{"replicas": int64(1), "bad": true})
	out, err := Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{bad}})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1)
	require.NotEmpty(t, out.Transitions[0].Err, "the API server refused it")
	assert.Nil(t, out.Failure)
}

// TestOnlyLandedTransitionsAreCounted: a history-dependent finding counts
// the transitions that landed, and lists the refused ones as refused.
// Without the rule, it says "after 2 transitions" (seen).
func TestOnlyLandedTransitionsAreCounted(t *testing.T) {
	sc := mirrorScenario("", true)
	bad := model.NewFields(model.Values{"replicas": int64(1), "bad": true})
	two := model.NewFields(model.Values{"replicas": int64(2)})
	out, err := Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{bad, two}})
	require.NoError(t, err)
	require.NotNil(t, out.Failure, "the toucher's label is in the history only")
	assert.Equal(t, HistoryDependent, out.Failure.Verdict)
	assert.Contains(t, out.Failure.Summary, "after 1 transition of")
	report := strings.Join(out.Failure.Diagnosis, "\n")
	assert.Contains(t, report, "of which 1 landed and 1 were refused by the API server")
	assert.Contains(t, report, "(refused by the API server: ")
}

// TestTheReferenceRunDrawsAsTheHistoryDid: a choice the world draws (here
// a custom label, as the kubelet draws a pod's failure) gets in the
// reference run the answer it got in the history, so it is not a
// difference. Without the replay, the reference answers 0 and the run is
// reported history-dependent (seen). A second run that drew otherwise
// does not reuse the first's reference: with the memo keyed by the spec
// alone, it is reported history-dependent (seen).
func TestTheReferenceRunDrawsAsTheHistoryDid(t *testing.T) {
	label := "kubelet: does web-x7kq2 fail"
	sc := mirrorScenario(label, false)
	two := model.NewFields(model.Values{"replicas": int64(2)})
	memo := newReferenceMemo()
	for _, v := range []int{1, 0, 1} {
		out, err := Execute(sc, nil, answer{label, v}, RunOptions{Inputs: Transitions{two}, refs: memo})
		require.NoError(t, err)
		require.Len(t, out.Transitions, 1)
		got := out.Cluster.State().Get("Cache", "default", "web")
		assert.Equal(t, v == 1, got.Status.Value("failed"), "the history drew %d", v)
		assert.Nil(t, out.Failure, "drawn %d", v)
	}
	assert.Equal(t, 2, memo.misses, "one reference run per set of answers")
	assert.Equal(t, 1, memo.hits)
}

func TestDrawFamiliesForgetGeneratedSuffixes(t *testing.T) {
	assert.Equal(t, "kubelet: does pi-* fail", drawFamily("kubelet: does pi-x7kq2 fail"))
	assert.Equal(t, "kubelet: pi-* starts", drawFamily("kubelet: pi-x7kq2 starts"))
	assert.Equal(t, "does pi-*", drawFamily("does pi-x7kq2"))
	assert.Equal(t, "does web-0 fail", drawFamily("does web-0 fail"), "not a generated suffix")
	assert.Equal(t, "does web-abcde fail", drawFamily("does web-abcde fail"), "vowels are not in the generator's alphabet")
	assert.Equal(t, "does pi-x7kq2x fail", drawFamily("does pi-x7kq2x fail"), "six characters")
	assert.Equal(t, model.SeedLabel, drawFamily(model.SeedLabel))
}

func TestReplaysMatchesAnswersByPositionPerFamily(t *testing.T) {
	d := draws{"a": {1, 2}, "b": {3}}
	asked := []ask{{"a", 2, 1}, {"b", 5, 3}, {"a", 2, 0}, {"b", 5, 0}}
	assert.True(t, replays(asked, d), "2 is out of range for n=2: first option; b ran out: first option")
	assert.False(t, replays(asked, draws{"a": {0}}))
	assert.True(t, replays(nil, draws{"a": {0}}), "a reference that drew nothing stands for any history")
}
