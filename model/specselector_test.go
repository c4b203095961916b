package model_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
)

func TestSpecSelectorReadsEveryFormOfSelector(t *testing.T) {
	for _, tc := range []struct {
		spec model.Fields
		want model.Selector
	}{
		{model.NewFields(model.Values{"replicas": int64(3), "selector.app": "web"}), model.Selector{"app": "web"}},
		{model.NewFields(model.Values{"selector.matchLabels.app": "web", `selector.matchLabels["app.kubernetes.io/name"]`: "shop"}), model.Selector{"app": "web", "app.kubernetes.io/name": "shop"}},
		{model.NewFields(model.Values{`selector["app.kubernetes.io/name"]`: "shop"}), model.Selector{"app.kubernetes.io/name": "shop"}},
		{model.NewFields(model.Values{"selector.matchLabels.app": "web", "selector.matchExpressions[0].key": "tier"}), nil},
		{model.NewFields(model.Values{"replicas": int64(3)}), nil},
		{model.NewFields(model.Values{"selectorish.app": "web", "selector.": "x", `selector["bad`: "x"}), nil},
	} {
		sel, ok := model.SpecSelector(&model.Object{Spec: tc.spec})
		assert.Equal(t, tc.want != nil, ok, "%v", tc.spec)
		assert.Equal(t, tc.want, sel, "%v", tc.spec)
	}
}

// TestSpecSelectorLabelsAreSpecSelectorsLabels cross-checks the labels
// SpecSelectorLabels builds as pairs against NewLabels of SpecSelector's
// map, and checks that a one-label selector costs one allocation: the
// pairs, no map.
func TestSpecSelectorLabelsAreSpecSelectorsLabels(t *testing.T) {
	for _, spec := range []model.Values{
		{"replicas": int64(3), "selector.app": "web"},
		{"selector.matchLabels.app": "web", `selector.matchLabels["app.kubernetes.io/name"]`: "shop"},
		{`selector["app.kubernetes.io/name"]`: "shop"},
		{"selector.matchLabels.app": "web", "selector.matchExpressions[0].key": "tier"},
		{"replicas": int64(3)},
		{"selectorish.app": "web", "selector.": "x", `selector["bad`: "x"},
		{"selector.matchLabels.app": "web", `selector.matchLabels["app"]`: "shop"}, // one key twice: the later path wins
		{"selector.app": "web", `selector["app"]`: "shop", "selector.tier": "front", "selector.zone": int64(1)},
		{"selector.matchLabels.z": "1", "selector.matchLabels.a": "2", "selector.matchLabels.m": "3", "selector.b": "plain"},
	} {
		o := &model.Object{Spec: model.NewFields(spec)}
		sel, ok := model.SpecSelector(o)
		labels, lok := model.SpecSelectorLabels(o)
		assert.Equal(t, ok, lok, "%v", spec)
		assert.Equal(t, model.NewLabels(sel), labels, "%v", spec)
	}
	rs := &model.Object{Spec: model.NewFields(model.Values{"replicas": int64(3), "selector.matchLabels.app": "web"})}
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { model.SpecSelectorLabels(rs) }))
}
