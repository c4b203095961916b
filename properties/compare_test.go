package properties

import (
	"fmt"
	"pgregory.net/rapid"
	"slices"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIgnoreDropsFieldsItemsAndAnyIndex: an ignore path drops the fields
// and the list items below it, "[*]" stands for any item, by index or by
// key, and "*" for any map key.
func TestIgnoreDropsFieldsItemsAndAnyIndex(t *testing.T) {
	for _, tc := range []struct {
		path, pattern string
		want          bool
	}{
		{"status.observedAt", "status.observedAt", true},
		{"spec.config.level", "spec.config", true},
		{"status.conditions[0].type", "status.conditions", true},
		{"status.conditions[12].lastTransitionTime", "status.conditions[*].lastTransitionTime", true},
		{"status.conditions[type=Ready].lastTransitionTime", "status.conditions[*].lastTransitionTime", true},
		{"status.conditions[1].type", "status.conditions[*].lastTransitionTime", false},
		{"status.conditionsX", "status.conditions", false},
		{"status.conditions.a.x", "status.conditions[*].x", false},
		{"spec.configs", "spec.config", false},
		{"spec.ports[port=80,protocol=TCP].targetPort", "spec.ports[port=80,protocol=TCP]", true},
		{"spec.ports[port=81,protocol=TCP].targetPort", "spec.ports[port=80,protocol=TCP]", false},
		{"spec.protocols[=TCP]", "spec.protocols[*]", true},
		{`metadata.annotations["example.com/paused"]`, "metadata.annotations.*", true},
		{"metadata.annotations.paused", "metadata.annotations.*", true},
		{`metadata.annotations["example.com/paused"]`, `metadata.annotations["example.com/paused"]`, true},
		{"metadata.annotations.paused", `metadata.annotations["paused"]`, true},
		{"metadata.labels.app", "metadata.annotations.*", false},
		{`metadata.annotations["example.com/paused"]`, "metadata.annotations.example.com/paused", true},
		{`metadata.labels["app.kubernetes.io/name"]`, "metadata.labels.app.kubernetes.io/name", true},
		{`metadata.labels["app.kubernetes.io/name"]`, "metadata.labels.app.kubernetes.io/part-of", false},
		{"spec.selector{}", "spec.selector", true},
		{"spec.ports[0]", "spec.*", true},
		{"spec.ports[0]", "spec.ports.*", false},
		{"spec.args[1](null)", "spec.args[*]", true},
	} {
		assert.Equal(t, tc.want, ignoring(tc.pattern).ignored("Cache", "web", tc.path), "%s against %s", tc.path, tc.pattern)
	}
}

// TestBadIgnoresAreRefusedWithTheirReason: every malformed ignore is an
// error naming it and what is wrong.
func TestBadIgnoresAreRefusedWithTheirReason(t *testing.T) {
	for _, tc := range []struct {
		ig   Ignore
		want string
	}{
		{Ignore{}, "needs a Path, a Kind or a Name"},
		{Ignore{Path: "spec..x"}, `bad path "spec..x": an empty field name`},
		{Ignore{Path: "spec.ports[0"}, "[0 is not closed"},
		{Ignore{Path: "spec.ports[]"}, `"[]" names no item`},
		{Ignore{Path: "metadata.annotations.app*"}, `"*" stands for a whole map key`},
		{Ignore{Path: `spec["a]`}, "a bad quoted key"},
		{Ignore{Kind: "PersistentVolumeClaim", Name: "data-["}, `bad name pattern "data-["`},
		{Ignore{Kind: "apps/v1.Deployment"}, `bad kind "apps/v1.Deployment"`},
	} {
		err := tc.ig.validate()
		if assert.Error(t, err, "%+v", tc.ig) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	for _, ig := range []Ignore{
		{Path: "spec.ports[port=80,protocol=TCP].targetPort"},
		{Kind: "Service", Path: `metadata.annotations["example.com/x"]`},
		{Kind: "PersistentVolumeClaim", Name: "data-*"},
		{Path: "status.conditions[*].lastTransitionTime"},
	} {
		assert.NoError(t, ig.validate(), "%+v", ig)
	}
}

// serviceSemantics declares, as the adapter does from the schemas, that a
// Service's ports are keyed by port and protocol and its families a set,
// and spells the quantity "2000m" as "2".
var serviceSemantics = Semantics{
	List: func(kind, path string) ListType {
		switch {
		case kind == "Service" && path == "spec.ports":
			return ListType{Keys: []string{"port", "protocol"}}
		case kind == "Service" && path == "spec.ipFamilies":
			return ListType{Set: true}
		}
		return ListType{}
	},
	Value: func(kind, path string, v any) any {
		if kind == "Service" && path == "spec.limits.cpu" && v == "2000m" {
			return "2"
		}
		return v
	},
}

// compareWorld builds a Cache default/web owning the given children and
// returns its state as cm captures it.
func compareWorld(t *testing.T, cm *comparer, children ...*model.Object) []stateObject {
	t.Helper()
	c := model.NewCluster(model.Config{})
	out := c.Outside("test")
	require.NoError(t, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web"}))
	owner, err := out.Get("Cache", "default", "web")
	require.NoError(t, err)
	for _, o := range children {
		o = o.DeepCopy()
		o.Namespace = "default"
		o.OwnerReferences = []model.OwnerReference{model.NewOwnerReference(owner)}
		require.NoError(t, out.Create(o))
	}
	st, ok := captureState(c.State(), cacheRef, cm)
	require.True(t, ok)
	return st
}

// service returns a Service named web with the given spec.
func service(spec model.Values) *model.Object {
	return &model.Object{Kind: "Service", Name: "web", Spec: model.NewFields(spec)}
}

// TestKeyedListsCompareByKeyAndReportKeyedPaths: ports in another order
// are the same ports; a changed one is reported at its keyed path.
func TestKeyedListsCompareByKeyAndReportKeyedPaths(t *testing.T) {
	cm := &comparer{sem: serviceSemantics}
	want := compareWorld(t, cm, service(model.Values{
		"ports[0].port": int64(80), "ports[0].protocol": "TCP", "ports[0].targetPort": int64(8080),
		"ports[1].port": int64(443), "ports[1].protocol": "TCP", "ports[1].targetPort": int64(8443),
	}))
	swapped := compareWorld(t, cm, service(model.Values{
		"ports[0].port": int64(443), "ports[0].protocol": "TCP", "ports[0].targetPort": int64(8443),
		"ports[1].port": int64(80), "ports[1].protocol": "TCP", "ports[1].targetPort": int64(8080),
	}))
	assert.Empty(t, cm.diffStates(want, swapped), "the same ports in another order")
	changed := compareWorld(t, cm, service(model.Values{
		"ports[0].port": int64(443), "ports[0].protocol": "TCP", "ports[0].targetPort": int64(8443),
		"ports[1].port": int64(80), "ports[1].protocol": "TCP", "ports[1].targetPort": int64(9090),
	}))
	assert.Equal(t, []string{"Service default/web spec.ports[port=80,protocol=TCP].targetPort: 9090 after the transitions, 8080 in a fresh cluster"},
		cm.diffStates(want, changed))

	// By position, the same swap is four differences.
	byPosition := &comparer{}
	plainWant := compareWorld(t, byPosition, service(model.Values{"ports[0].port": int64(80), "ports[1].port": int64(443)}))
	plainGot := compareWorld(t, byPosition, service(model.Values{"ports[0].port": int64(443), "ports[1].port": int64(80)}))
	assert.Len(t, byPosition.diffStates(plainWant, plainGot), 2)

	// A keyed ignore drops that item only.
	cm.ignores = newComparer(&Inputs{Ignore: []Ignore{{Kind: "Service", Path: "spec.ports[port=80,protocol=TCP].targetPort"}}}).ignores
	want = compareWorld(t, cm, service(model.Values{"ports[0].port": int64(80), "ports[0].protocol": "TCP", "ports[0].targetPort": int64(8080),
		"ports[1].port": int64(443), "ports[1].protocol": "TCP", "ports[1].targetPort": int64(8443)}))
	changed = compareWorld(t, cm, service(model.Values{"ports[0].port": int64(443), "ports[0].protocol": "TCP", "ports[0].targetPort": int64(9443),
		"ports[1].port": int64(80), "ports[1].protocol": "TCP", "ports[1].targetPort": int64(9090)}))
	assert.Equal(t, []string{"Service default/web spec.ports[port=443,protocol=TCP].targetPort: 9443 after the transitions, 8443 in a fresh cluster"},
		cm.diffStates(want, changed), "port 80's targetPort is ignored, port 443's is not")
}

// TestSetsCompareAsSetsAndQuantitiesByValue: a set list in another order
// and one quantity spelled two ways are no difference.
func TestSetsCompareAsSetsAndQuantitiesByValue(t *testing.T) {
	cm := &comparer{sem: serviceSemantics}
	want := compareWorld(t, cm, service(model.Values{"ipFamilies[0]": "IPv4", "ipFamilies[1]": "IPv6", "limits.cpu": "2"}))
	got := compareWorld(t, cm, service(model.Values{"ipFamilies[0]": "IPv6", "ipFamilies[1]": "IPv4", "limits.cpu": "2000m"}))
	assert.Empty(t, cm.diffStates(want, got))
	got = compareWorld(t, cm, service(model.Values{"ipFamilies[0]": "IPv6", "limits.cpu": "3"}))
	assert.Equal(t, []string{
		`Service default/web spec.ipFamilies[=IPv4]: <none> after the transitions, "IPv4" in a fresh cluster`,
		`Service default/web spec.limits.cpu: "3" after the transitions, "2" in a fresh cluster`,
	}, cm.diffStates(want, got))
}

// TestDuplicateKeysFallBackToPositions: a keyed list whose items do not
// have distinct keys is compared by position, not merged.
func TestDuplicateKeysFallBackToPositions(t *testing.T) {
	cm := &comparer{sem: serviceSemantics}
	st := compareWorld(t, cm, service(model.Values{"ports[0].port": int64(80), "ports[0].protocol": "TCP", "ports[1].port": int64(80), "ports[1].protocol": "TCP"}))
	assert.Equal(t, []string{"metadata.ownerReferences", "spec.ports[0].port", "spec.ports[0].protocol", "spec.ports[1].port", "spec.ports[1].protocol"}, st[1].view.Paths())
}

// TestAnnotationsAreIgnoredByWildcard: "metadata.annotations.*" drops
// every annotation, whatever its key, of the kinds it names.
func TestAnnotationsAreIgnoredByWildcard(t *testing.T) {
	annotated := func(v string) *model.Object {
		o := service(nil)
		o.Labels = model.NewLabels(map[string]string{model.AnnotationLabelPrefix + "example.com/paused": v, "app": "web"})
		return o
	}
	plain := &comparer{}
	assert.Equal(t, []string{`Service default/web metadata.annotations["example.com/paused"]: "yes" after the transitions, "no" in a fresh cluster`},
		plain.diffStates(compareWorld(t, plain, annotated("no")), compareWorld(t, plain, annotated("yes"))))
	cm := newComparer(&Inputs{Ignore: []Ignore{{Kind: "Service", Path: "metadata.annotations.*"}}})
	want, got := compareWorld(t, cm, annotated("no")), compareWorld(t, cm, annotated("yes"))
	assert.Empty(t, cm.diffStates(want, got))
	assert.Equal(t, []string{"metadata.labels.app", "metadata.ownerReferences"}, want[1].view.Paths(), "labels are kept")
	other := newComparer(&Inputs{Ignore: []Ignore{{Kind: "Pod", Path: "metadata.annotations.*"}}})
	assert.Len(t, other.diffStates(compareWorld(t, other, annotated("no")), compareWorld(t, other, annotated("yes"))), 1, "an ignore of another kind")
}

// TestObjectsIgnoredByNameArePresentOnOneSideByDesign: a claim kept after
// a scale-down is no difference when an ignore names it; a claim that
// differs on both sides still is.
func TestObjectsIgnoredByNameArePresentOnOneSideByDesign(t *testing.T) {
	claim := func(name string, size int64) *model.Object {
		return &model.Object{Kind: "PersistentVolumeClaim", Name: name, Spec: model.NewFields(model.Values{"size": size})}
	}
	plain := &comparer{}
	assert.Equal(t, []string{"PersistentVolumeClaim default/data-web-1: after the transitions, not in a fresh cluster"},
		plain.diffStates(compareWorld(t, plain, claim("data-web-0", 1)), compareWorld(t, plain, claim("data-web-0", 1), claim("data-web-1", 1))))
	cm := newComparer(&Inputs{Ignore: []Ignore{{Kind: "PersistentVolumeClaim", Name: "data-*"}}})
	assert.Empty(t, cm.diffStates(compareWorld(t, cm, claim("data-web-0", 1)), compareWorld(t, cm, claim("data-web-0", 1), claim("data-web-1", 1))))
	assert.Equal(t, []string{"PersistentVolumeClaim default/data-web-0 spec.size: 2 after the transitions, 1 in a fresh cluster"},
		cm.diffStates(compareWorld(t, cm, claim("data-web-0", 1)), compareWorld(t, cm, claim("data-web-0", 2))), "present on both sides, compared")
	other := newComparer(&Inputs{Ignore: []Ignore{{Kind: "PersistentVolumeClaim", Name: "logs-*"}}})
	assert.Len(t, other.diffStates(compareWorld(t, other, claim("data-web-0", 1)), compareWorld(t, other, claim("data-web-0", 1), claim("data-web-1", 1))), 1)
}

// portKeeper keeps a Service web owned by its Cache with one port per
// field of the Cache's spec (name to number): ports it already has stay in
// their order and new ones go last, so the order is the history's, as an
// operator building ports from a map has a random one.
func portKeeper() model.Controller {
	return model.Controller{
		Name: "port-keeper",
		For:  "Cache",
		Owns: []string{"Service"},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				cache, err := c.Get("Cache", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				svc, err := c.Get("Service", req.Namespace, req.Name)
				create := err != nil
				if create {
					svc = &model.Object{Kind: "Service", Namespace: req.Namespace, Name: req.Name, OwnerReferences: []model.OwnerReference{model.NewOwnerReference(cache)}}
				}
				var names []string
				for i := 0; svc.Spec.Has(fmt.Sprintf("ports[%d].name", i)); i++ {
					if name := svc.Spec.Str(fmt.Sprintf("ports[%d].name", i)); cache.Spec.Has(name) {
						names = append(names, name)
					}
				}
				for _, p := range cache.Spec.Paths() {
					if !slices.Contains(names, p) {
						names = append(names, p)
					}
				}
				spec := model.Values{}
				for i, name := range names {
					spec[fmt.Sprintf("ports[%d].name", i)] = name
					spec[fmt.Sprintf("ports[%d].port", i)] = cache.Spec.Int(name)
				}
				if !create && svc.Spec.Equal(model.NewFields(spec)) {
					return model.Result{}, nil
				}
				svc.Spec = model.NewFields(spec)
				if create {
					return model.Result{}, c.Create(svc)
				}
				return model.Result{}, c.Update(svc)
			})
		},
	}
}

// TestTheOracleComparesKeyedListsOfItsInputs: ports in the order of the
// history are a difference by position, and none once Inputs.Semantics
// keys them.
func TestTheOracleComparesKeyedListsOfItsInputs(t *testing.T) {
	metrics := model.NewFields(model.Values{"metrics": int64(9090)})
	both := model.NewFields(model.Values{"http": int64(80), "metrics": int64(9090)})
	sc := Scenario{
		Name: "port-keeper",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(portKeeper()); err != nil {
				return nil, err
			}
			return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web"})
		},
		Inputs: &Inputs{Target: cacheRef, Spec: rapid.Just(both), Max: 2},
	}
	out, err := Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{metrics, both}})
	require.NoError(t, err)
	require.NotNil(t, out.Failure, "by position, the history's order differs")
	assert.Equal(t, HistoryDependent, out.Failure.Verdict)
	assert.Contains(t, out.Failure.Details, `Service default/web spec.ports[0].name: "metrics" after the transitions, "http" in a fresh cluster`)

	sc.Inputs.Semantics = Semantics{List: func(kind, path string) ListType {
		if kind == "Service" && path == "spec.ports" {
			return ListType{Keys: []string{"name"}}
		}
		return ListType{}
	}}
	out, err = Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{metrics, both}})
	require.NoError(t, err)
	assert.Nil(t, out.Failure, "keyed by name, the same ports")
}
