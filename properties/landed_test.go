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
	obj.Labels = model.NewLabels(map[string]string{"touched": "yes"})
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
				want := model.NewFields(model.Values{"replicas": obj.Spec.Int("replicas"), "touched": obj.Labels.Value("touched"), "failed": failed})
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
func refuseBad(_ string, verb model.Verb, _, obj *model.Object) error {
	if verb != model.VerbDelete && obj.Kind == "Cache" && obj.Spec.Has("bad") {
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

// storage acts on the Cache's spec.size, reported in status.size and
// held by its Claim web-data, and refuses to shrink: a smaller spec.size
// gets status.refused and leaves the size as it was. When stuck, once it
// refused it never grows again, nor says so: a real bug.
func storage(stuck bool) model.Controller {
	return model.Controller{
		Name: "storage",
		For:  "Cache",
		Owns: []string{"Claim"},
		NewReconciler: func(cl model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				obj, err := cl.Get("Cache", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				size, want := obj.Spec.Int("size"), obj.Spec.Int("size")
				if obj.Status.Has("size") {
					size = obj.Status.Int("size")
				}
				status := model.Values{"observedGeneration": obj.Generation}
				switch {
				case want < size:
					status["refused"] = "ShrinkNotSupported"
					status["everRefused"] = true
				case stuck && obj.Status.Has("everRefused"):
					status["everRefused"] = true
				default:
					size = want
				}
				status["size"] = size
				claim, err := cl.Get("Claim", req.Namespace, "web-data")
				switch {
				case model.ReasonOf(err) == model.ReasonNotFound:
					claim = &model.Object{Kind: "Claim", Namespace: req.Namespace, Name: "web-data", OwnerReferences: []model.OwnerReference{model.NewOwnerReference(obj)},
						Spec: model.NewFields(model.Values{"size": size})}
					if err := cl.Create(claim); err != nil {
						return model.Result{}, err
					}
				case err != nil:
					return model.Result{}, err
				case claim.Spec.Int("size") != size:
					claim.Spec = model.NewFields(model.Values{"size": size})
					if err := cl.Update(claim); err != nil {
						return model.Result{}, err
					}
				}
				if s := model.NewFields(status); !obj.Status.Equal(s) {
					obj.Status = s
					return model.Result{}, cl.UpdateStatus(obj)
				}
				return model.Result{}, nil
			})
		},
	}
}

func storageScenario(stuck, declare bool) Scenario {
	sc := Scenario{
		Name: "storage",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(storage(stuck)); err != nil {
				return nil, err
			}
			return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web", Spec: size(5)})
		},
		Inputs: &Inputs{Target: cacheRef, Spec: rapid.Just(size(1))},
	}
	if declare {
		sc.Inputs.Refused = func(o *model.Object) (string, bool) {
			r := o.Status.Str("refused")
			return r, r != ""
		}
	}
	return sc
}

func size(n int64) model.Fields { return model.NewFields(model.Values{"size": n}) }

// TestARefusedInputIsComparedFromTheLastAcceptedSpec: an operator that
// refuses to shrink keeps its size; a fresh cluster given the smaller spec
// directly would not, so without Inputs.Refused the oracle blames the
// refusal (seen below). With it, the reference converges on the last
// accepted spec first, and there is no finding.
func TestARefusedInputIsComparedFromTheLastAcceptedSpec(t *testing.T) {
	in := Transitions{size(3)}
	out, err := Execute(storageScenario(false, false), nil, firstChoice{}, RunOptions{Inputs: in})
	require.NoError(t, err)
	require.NotNil(t, out.Failure, "undeclared, the refusal is taken for a history")
	assert.Contains(t, out.Failure.Details, "Claim default/web-data spec.size: 5 after the transitions, 3 in a fresh cluster")

	for _, in := range []Transitions{{size(3)}, {size(8), size(3)}, {size(3), size(2)}} {
		out, err := Execute(storageScenario(false, true), nil, firstChoice{}, RunOptions{Inputs: in})
		require.NoError(t, err)
		assert.Nil(t, out.Failure, "inputs %v", in)
	}
}

// TestABugAfterARefusalIsStillFound: the stuck operator never grows again
// after a refusal. With the final spec accepted, the reference is the
// usual one; with it refused, the report says so and names the last
// accepted spec.
func TestABugAfterARefusalIsStillFound(t *testing.T) {
	out, err := Execute(storageScenario(true, true), nil, firstChoice{}, RunOptions{Inputs: Transitions{size(3), size(8)}})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	assert.Equal(t, HistoryDependent, out.Failure.Verdict)
	assert.Contains(t, out.Failure.Details, "Claim default/web-data spec.size: 5 after the transitions, 8 in a fresh cluster")

	out, err = Execute(storageScenario(true, true), nil, firstChoice{}, RunOptions{Inputs: Transitions{size(3), size(8), size(4)}})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	assert.Equal(t, HistoryDependent, out.Failure.Verdict)
	assert.Contains(t, out.Failure.Summary, "a fresh cluster given the last accepted spec, then the final spec")
	assert.Contains(t, out.Failure.Diagnosis[0], "the operator refused the final spec (ShrinkNotSupported): it was compared with a fresh cluster converged on the last spec it accepted, {size: 8}")
	assert.Contains(t, out.Failure.Details, "Claim default/web-data spec.size: 5 after the transitions, 8 in a fresh cluster")
}

// porter creates the Service web with the Cache's spec.port, 0 when it has
// none, and never updates it: a port change never reaches it (a real
// history dependence). A Service with port 0 is invalid (validPorts).
func porter() model.Controller {
	return model.Controller{
		Name: "porter",
		For:  "Cache",
		Owns: []string{"Service"},
		NewReconciler: func(cl model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				obj, err := cl.Get("Cache", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				if _, err := cl.Get("Service", req.Namespace, "web"); model.ReasonOf(err) != model.ReasonNotFound {
					return model.Result{}, err
				}
				return model.Result{}, cl.Create(&model.Object{Kind: "Service", Namespace: req.Namespace, Name: "web",
					OwnerReferences: []model.OwnerReference{model.NewOwnerReference(obj)},
					Spec:            model.NewFields(model.Values{"port": obj.Spec.Int("port")})})
			})
		},
	}
}

// validPorts rejects a Service whose port is not in 1-65535, as a real
// API server validates built-in kinds.
func validPorts(_ string, verb model.Verb, _, obj *model.Object) error {
	if verb == model.VerbDelete {
		return nil
	}
	if p := obj.Spec.Int("port"); obj.Kind == "Service" && (p < 1 || p > 65535) {
		return &model.StatusError{Reason: model.ReasonInvalid, Message: "spec.port: Invalid value: must be between 1 and 65535"}
	}
	return nil
}

func porterScenario() Scenario {
	return Scenario{
		Name: "porter",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			c.Server().AddAdmission(validPorts)
			if err := c.AddController(porter()); err != nil {
				return nil, err
			}
			return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{"port": int64(80)})})
		},
		// A spec with no port, or a port 1-3.
		Inputs: &Inputs{Target: cacheRef, Spec: rapid.Custom(func(t *rapid.T) model.Fields {
			if p := rapid.IntRange(0, 3).Draw(t, "port"); p > 0 {
				return model.NewFields(model.Values{"port": int64(p)})
			}
			return model.Fields{}
		})},
	}
}

// TestAWitnessNeedsValidChildren: a spec whose children a real API server
// rejects as invalid is no witness of a history dependence (here a fresh
// cluster given no port loops on an invalid Service), so the search
// shrinks to the smallest spec whose children are valid. Without the
// rule, the empty spec is reported (seen: a fresh cluster fails with
// rejected writes).
func TestAWitnessNeedsValidChildren(t *testing.T) {
	out, err := Execute(porterScenario(), nil, firstChoice{}, RunOptions{Inputs: Transitions{{}}})
	require.NoError(t, err)
	assert.Nil(t, out.Failure, "the fresh cluster's Service would be invalid")

	res, err := Search(porterScenario(), nil, SearchOptions{Test: t, Checks: 50, Seed: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample, "the port change never reaches the Service")
	cx := res.Counterexample
	assert.Equal(t, HistoryDependent, cx.Failure.Verdict)
	require.Len(t, cx.Inputs, 1)
	assert.Equal(t, int64(1), cx.Inputs[0].Int("port"), "the smallest spec with a valid Service")
	assert.Contains(t, cx.Failure.Details, "Service default/web spec.port: 80 after the transitions, 1 in a fresh cluster")
}
