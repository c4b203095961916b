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
