package cronjob

import (
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// EveryFault is every fault kind but the persistent rival, which makes a
// fight by construction.
var EveryFault = faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}

// Late is Job events arriving late, the fault that finds the bug of
// Options.NameByCreationTime.
var Late = faults.Mix{faults.KindDelay}

// Campaign is the example's fuzzrun campaign, for fuzzrun.MainTest: the
// PeriodicJob controller must converge under every fault and under late
// events alone; its twin that names Jobs by their creation time must
// break the invariant one Job per run under late events. Its rows are
// those scenarios under those mixes (docs/ci.md, "Campaigns of
// controller-runtime projects").
func Campaign() ([]properties.Scenario, error) {
	conv, err := Converter()
	if err != nil {
		return nil, err
	}
	ok := Scenario("periodicjob", conv, Options{})
	ok.Expect = []properties.Expectation{{Faults: EveryFault}, {Faults: Late}}
	bug := Scenario("periodicjob-bug", conv, Options{NameByCreationTime: true})
	bug.Doc += "; names its Jobs by their creation time, so a late Job event makes two Jobs for one run"
	bug.Expect = []properties.Expectation{{Faults: Late, Fails: properties.InvariantBroken}}
	return []properties.Scenario{ok, bug}, nil
}
