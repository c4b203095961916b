package properties

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// TestRunnersEndWhenRunsDo: the goroutines that run executions are kept
// between runs, and end once no run has been going for a moment, so that
// a test suite done with runs is left with none of them.
func TestRunnersEndWhenRunsDo(t *testing.T) {
	idle := func() int {
		runners.Lock()
		defer runners.Unlock()
		return len(runners.idle)
	}
	sc := Scenario{Name: "one-replicaset", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(replicaset.Level(replicaset.LevelOptions{})); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 2))
	}}
	for range 3 {
		_, err := Execute(sc, nil, &ReplayChooser{}, RunOptions{DiscardTrace: true})
		require.NoError(t, err)
	}
	require.Positive(t, idle(), "a runner is kept between runs")
	require.Eventually(t, func() bool { return idle() == 0 }, 10*time.Second, 10*time.Millisecond,
		"runner goroutines outlive the runs")
}
