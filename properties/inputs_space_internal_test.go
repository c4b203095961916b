package properties

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

// TestRunsDrawInTheDeclaredSpace: the transitions a run draws (as Search
// and fuzzrun draw them) keep only Fields, items included through "[*]",
// and always carry Pin.
func TestRunsDrawInTheDeclaredSpace(t *testing.T) {
	in := &Inputs{Target: cacheRef, Max: 3,
		Spec: rapid.Custom(func(t *rapid.T) model.Fields {
			return model.NewFields(model.Values{
				"replicas":          rapid.Int64Range(0, 9).Draw(t, "replicas"),
				"image":             rapid.SampledFrom([]string{"v1", "v2"}).Draw(t, "image"),
				"ports[0].port":     rapid.Int64Range(1, 9).Draw(t, "port"),
				"ports[0].protocol": "TCP",
				"portsNote":         "x",
			})
		}),
		Fields: []string{"replicas", "ports[*].port"},
		Pin:    model.Values{"image": "v3"},
	}
	n := 0
	for i := range 50 {
		for _, spec := range in.generator().Example(i) {
			n++
			assert.Equal(t, []string{"image", "ports[0].port", "replicas"}, spec.Paths(), "%v", spec)
			assert.Equal(t, "v3", spec.Str("image"))
		}
	}
	assert.Positive(t, n)
}
