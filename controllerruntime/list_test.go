package controllerruntime

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
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
