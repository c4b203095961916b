package fuzzrun

import (
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAWorkerPreparesEachRowOnce: the jobs of one row, and every seed of
// each, reuse one preparation of the row's scenario and mix: after the
// first, every seed builds the scenario just once, for its run. The first
// builds it twice more: its preparation, and its dry run.
func TestAWorkerPreparesEachRowOnce(t *testing.T) {
	sc := scenarios.ReplicaSetLevel()
	builds := 0
	build := sc.Build
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		builds++
		return build(cfg)
	}
	ps := newPlans([]properties.Scenario{sc}, nil)
	mix := faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}
	for id, want := range []int{2 + 3, 3} {
		before := builds
		j := &job{ID: id, Scenario: sc.Name, Faults: mix.String(), Seeds: []uint64{uint64(3*id + 1), uint64(3*id + 2), uint64(3*id + 3)}, Budget: time.Hour}
		seeds := 0
		runJob(j, ps, func(r result) {
			require.Empty(t, r.Error)
			require.Nil(t, r.Finding)
			if !r.Done {
				seeds++
			}
		})
		require.Equal(t, 3, seeds)
		assert.Equal(t, want, builds-before, "job %d: preparation and dry run, then one build per seed", id)
	}
}
