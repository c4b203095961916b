package controllerruntime

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// equalities hands the model's label index the label=value requirements
// of a selector, an In of one distinct value among them, and nothing
// else.
func TestEqualities(t *testing.T) {
	for _, c := range []struct {
		sel  string
		want model.Selector
	}{
		{"app=web", model.Selector{"app": "web"}},
		{"app==web,tier=db", model.Selector{"app": "web", "tier": "db"}},
		{"app in (web)", model.Selector{"app": "web"}},
		{"app in (web,web)", model.Selector{"app": "web"}},
		{"app in (web,db)", nil},
		{"app!=web", nil},
		{"app", nil},
		{"app notin (web),tier=db", model.Selector{"tier": "db"}},
	} {
		sel, err := labels.Parse(c.sel)
		require.NoError(t, err, c.sel)
		assert.Equal(t, c.want, equalities(sel), c.sel)
	}
}

// guessResource gives meta.UnsafeGuessKindToResource's answer, the first
// time and every time after.
func TestGuessResourceIsTheGuess(t *testing.T) {
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "Pod"},
		{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"},
		{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
	} {
		plural, singular := meta.UnsafeGuessKindToResource(gvk)
		for range 2 {
			p, s := guessResource(gvk)
			assert.Equal(t, plural, p, gvk.String())
			assert.Equal(t, singular, s, gvk.String())
		}
	}
}

// The collector hands the model what the handlers added, in order, and an
// empty list (not nil) when they added nothing.
func TestCollectorKeepsRequestsInOrder(t *testing.T) {
	q := &collector{}
	assert.Equal(t, []model.Request{}, q.requests())
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "b"}})
	q.AddRateLimited(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "a"}})
	assert.Equal(t, []model.Request{{Namespace: "default", Name: "b"}, {Namespace: "default", Name: "a"}}, q.requests())
}
