package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/examples/cache"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExploreSpecsKeepTheDeclaredSpace: the specs an exploration is made
// of carry only Inputs.Fields and always Inputs.Pin.
func TestExploreSpecsKeepTheDeclaredSpace(t *testing.T) {
	in := &properties.Inputs{Target: model.Ref{Kind: cache.Kind, Namespace: "default", Name: "web"}, Spec: cache.Spec(),
		Fields: []string{"replicas"}, Pin: model.Values{"tier": "gold"}}
	specs, err := properties.ExploreSpecs(in, 6)
	require.NoError(t, err)
	require.NotEmpty(t, specs)
	replicas := map[int64]bool{}
	for _, s := range specs {
		assert.Equal(t, []string{"replicas", "tier"}, s.Paths(), "%v", s)
		assert.Equal(t, "gold", s.Str("tier"))
		replicas[s.Int("replicas")] = true
	}
	assert.Len(t, replicas, len(specs), "distinct specs differ in the one drawn field")
}

// TestAnExplorationStaysInTheDeclaredSpace: the stale-tier bug needs a
// transition that removes the tier; with Fields that leave the tier out,
// no spec has one and the same exploration that finds the bug
// (TestExploreFindsBugsInInputs) finds nothing.
func TestAnExplorationStaysInTheDeclaredSpace(t *testing.T) {
	skipUnderRace(t)
	sc := catalogScenario(t, "cache-stale-tier")
	in := *sc.Inputs
	in.Fields = []string{"replicas", "image"}
	sc.Inputs = &in
	res, err := properties.Explore(sc, nil, properties.ExploreOptions{Depth: 2})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample, "no spec of the declared space has a tier")
	assert.Equal(t, 2, res.Depth)
}

// TestPinsAndFieldsAreValidated: a pin the transitions cannot carry, or a
// malformed path, is an error naming it.
func TestPinsAndFieldsAreValidated(t *testing.T) {
	build := func(model.Config) (*model.Cluster, error) { return model.NewCluster(model.Config{}), nil }
	sc := properties.Scenario{Name: "x", Build: build, Inputs: &properties.Inputs{
		Target: model.Ref{Kind: cache.Kind, Namespace: "default", Name: "web"}, Spec: cache.Spec(),
		Fields: []string{"tier."},
		Pin:    model.Values{"replicas": 3, "members[*].image": "v2", "": "x"},
	}}
	err := sc.Validate()
	assert.ErrorContains(t, err, `bad field path "tier."`)
	assert.ErrorContains(t, err, `pin "replicas": unsupported value 3 of type int (use int64, string or bool)`)
	assert.ErrorContains(t, err, `bad pin path "members[*].image"`)
	assert.ErrorContains(t, err, `bad pin path ""`)
}
