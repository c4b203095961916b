package cache_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/examples/cache"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withGoal is a Cache scenario whose controller has opts' bugs and the
// given goal.
func withGoal(opts cache.Options, goal func(model.State) []model.Unmet) properties.Scenario {
	ctrl := cache.Controller(opts)
	ctrl.Goal = goal
	return properties.Scenario{
		Name: "cache-with-goal",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(ctrl); err != nil {
				return nil, err
			}
			return c, c.Apply(cache.New("default", "web", 2))
		},
		Inputs: &properties.Inputs{Target: model.Ref{Kind: cache.Kind, Namespace: "default", Name: "web"}, Spec: cache.Spec()},
	}
}

// membersMatchReplicas holds for every Cache operator here, broken or not.
func membersMatchReplicas(s model.State) []model.Unmet {
	c := s.Get(cache.Kind, "default", "web")
	if n := s.Count(cache.PodKind, model.ListOptions{Namespace: "default", Owner: c.UID}); int64(n) != c.Spec.Int("replicas") {
		return []model.Unmet{{Object: c.Ref(), Message: fmt.Sprintf("wants %d members, has %d", c.Spec.Int("replicas"), n)}}
	}
	return nil
}

// membersRunTheImage is the goal the scale-down bug breaks.
func membersRunTheImage(s model.State) []model.Unmet {
	c := s.Get(cache.Kind, "default", "web")
	var out []model.Unmet
	for _, p := range s.List(cache.PodKind, model.ListOptions{Namespace: "default", Owner: c.UID}) {
		if p.Spec.Str(cache.ImagePath) != c.Spec.Str("image") {
			out = append(out, model.Unmet{Object: p.Ref(), Message: "runs " + p.Spec.Str(cache.ImagePath)})
		}
	}
	return out
}

func search(t *testing.T, sc properties.Scenario) *properties.Counterexample {
	t.Helper()
	res, err := properties.Search(sc, nil, properties.SearchOptions{Test: t, Checks: 100, Seed: 1})
	require.NoError(t, err)
	return res.Counterexample
}

// Where a scenario writes a goal too, both oracles run: a goal that holds
// leaves the differential oracle to find the bug, and a goal that breaks
// is reported first, as goal-unmet.
func TestBothOraclesRunWhereAGoalIsWritten(t *testing.T) {
	cx := search(t, withGoal(cache.Options{StaleOnScaleDown: true}, membersMatchReplicas))
	require.NotNil(t, cx)
	assert.Equal(t, properties.HistoryDependent, cx.Failure.Verdict, cx.Report())

	cx = search(t, withGoal(cache.Options{StaleOnScaleDown: true}, membersRunTheImage))
	require.NotNil(t, cx)
	assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict, cx.Report())
	assert.Len(t, cx.Inputs, 1, cx.Report())
	assert.Contains(t, cx.Report(), "inputs (1 transition of Cache default/web):")

	assert.Nil(t, search(t, withGoal(cache.Options{}, func(s model.State) []model.Unmet {
		return append(membersMatchReplicas(s), membersRunTheImage(s)...)
	})))
}
