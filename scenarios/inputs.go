package scenarios

import (
	"github.com/converge-sim/converge/examples/cache"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// cacheWorld builds a cluster running ctrl over one Cache, default/web,
// with 2 members on image v1 and no tier.
func cacheWorld(ctrl model.Controller) func(cfg model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(ctrl); err != nil {
			return nil, err
		}
		return c, c.Apply(cache.New("default", "web", 2))
	}
}

// cacheInputs are the state transitions of the Cache default/web: whole
// specs drawn from its schema's shape (cache.Spec).
func cacheInputs() *properties.Inputs {
	return &properties.Inputs{Target: model.Ref{Kind: cache.Kind, Namespace: "default", Name: "web"}, Spec: cache.Spec()}
}

// CacheStaleOnScaleDown is the Cache operator that leaves the members
// surviving a scale-down on the old image when the same transition
// changes the image. No goal is written: the differential oracle finds it
// from the inputs alone.
func CacheStaleOnScaleDown() properties.Scenario {
	return properties.Scenario{
		Name:    "cache-stale-scaledown",
		Program: Fuzzrun,
		Doc:     "Cache operator, no goal written, whose members surviving a scale-down keep the old image; state transitions find it (history-dependent)",
		Build:   cacheWorld(cache.Controller(cache.Options{Name: "cache-stale-scaledown", StaleOnScaleDown: true})),
		Inputs:  cacheInputs(),
		Expect: []properties.Expectation{
			{Fails: properties.HistoryDependent},
		},
	}
}

// CacheKeepsRemovedTier is the Cache operator that never removes a
// member's tier once the Cache drops its optional tier.
func CacheKeepsRemovedTier() properties.Scenario {
	return properties.Scenario{
		Name:    "cache-stale-tier",
		Program: Fuzzrun,
		Doc:     "Cache operator, no goal written, that leaves a removed optional tier in its members; state transitions find it (history-dependent)",
		Build:   cacheWorld(cache.Controller(cache.Options{Name: "cache-stale-tier", KeepsRemovedTier: true})),
		Inputs:  cacheInputs(),
		Expect: []properties.Expectation{
			{Fails: properties.HistoryDependent},
		},
	}
}

// CachePanicsOnTier is the Cache operator that divides its tier's memory
// by spec.replicas: an input with a tier and no replicas panics it.
func CachePanicsOnTier() properties.Scenario {
	return properties.Scenario{
		Name:    "cache-panic-tier",
		Program: Fuzzrun,
		Doc:     "Cache operator, no goal written, that panics on a tier with no replicas; state transitions find the input (panic)",
		Build:   cacheWorld(cache.Controller(cache.Options{Name: "cache-panic-tier", DividesByReplicas: true})),
		Inputs:  cacheInputs(),
		Expect: []properties.Expectation{
			{Fails: properties.ControllerPanic},
		},
	}
}

// CacheFixed is the fixed Cache operator: every transition, with or
// without controller restarts, ends in the state its final spec gives a
// fresh cluster.
func CacheFixed() properties.Scenario {
	return properties.Scenario{
		Name:    "cache-fixed",
		Program: Fuzzrun,
		Doc:     "fixed Cache operator, no goal written; every sequence of state transitions ends where its final spec alone leads",
		Build:   cacheWorld(cache.Controller(cache.Options{})),
		Inputs:  cacheInputs(),
		Expect: []properties.Expectation{
			{},
			{Faults: faults.Mix{faults.KindRestart}},
		},
	}
}
