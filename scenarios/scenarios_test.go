package scenarios_test

import (
	"testing"

	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryScenarioShowsWhatItMust runs each built-in scenario under each
// fault mix it declares, as fuzzrun does, and checks the outcome against
// the declaration: a scenario that must converge passes every run, one that
// must fail fails with the declared verdict.
func TestEveryScenarioShowsWhatItMust(t *testing.T) {
	// A search stops at its first failure, so a row that must fail is
	// given more runs: the rarest, cache-stale-tier, fails in about 2% of
	// them.
	const checks, failingChecks = 60, 300
	for _, sc := range scenarios.All() {
		for _, e := range sc.Expect {
			t.Run(sc.Name+"/"+e.Faults.String(), func(t *testing.T) {
				n := checks
				if e.Fails != "" {
					n = failingChecks
				}
				res, err := properties.Search(sc, e.Faults, properties.SearchOptions{Test: t, Checks: n, Seed: 1})
				require.NoError(t, err)
				cx := res.Counterexample
				if e.Fails == "" {
					if cx != nil {
						t.Fatalf("must converge, but:\n%s", cx.Report())
					}
					return
				}
				require.NotNil(t, cx, "must fail with %s, but %d runs converged", e.Fails, res.Runs)
				assert.Equal(t, e.Fails, cx.Failure.Verdict, cx.Report())
			})
		}
	}
}

func TestScenariosAreValidAndNamedUniquely(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range scenarios.All() {
		require.NoError(t, sc.Validate())
		assert.False(t, seen[sc.Name], "two scenarios named %s", sc.Name)
		seen[sc.Name] = true
		assert.NotEmpty(t, sc.Doc, sc.Name)
		assert.NotEmpty(t, sc.Expect, "%s declares nothing to show", sc.Name)
		got, ok := scenarios.ByName(sc.Name)
		assert.True(t, ok)
		assert.Equal(t, sc.Name, got.Name)
	}
}
