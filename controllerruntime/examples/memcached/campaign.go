package memcached

import (
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// EveryFault is every fault kind but the persistent rival, which makes a
// fight by construction.
var EveryFault = faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}

// Faithful is EveryFault without drop, the fault that stands for a
// handler bug: what real API servers and client-go do.
var Faithful = faults.Mix{faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}

// Campaign is the example's fuzzrun campaign, for fuzzrun.MainTest: the
// Memcached controller must converge with a resync every 30 seconds under
// every fault, and without resync under the faithful ones; its twin
// that forgets Owns(&Deployment{}) must leave a goal unmet (its
// Available condition stale) under outside edits (docs/ci.md, "Campaigns
// of controller-runtime projects").
func Campaign() ([]properties.Scenario, error) {
	conv, err := Converter()
	if err != nil {
		return nil, err
	}
	resync := Scenario("memcached-resync", conv, Options{SyncPeriod: 30 * time.Second})
	resync.Doc += "; resyncs every 30 s"
	resync.Expect = []properties.Expectation{{Faults: EveryFault}}
	plain := Scenario("memcached", conv, Options{})
	plain.Expect = []properties.Expectation{{Faults: Faithful}}
	bug := Scenario("memcached-bug", conv, Options{ForgetOwns: true})
	bug.Doc += "; forgets Owns(&Deployment{}), so it never hears that its Deployment became ready"
	bug.Expect = []properties.Expectation{{Faults: faults.Mix{faults.KindEdit}, Fails: properties.GoalUnmet}}
	return []properties.Scenario{resync, plain, bug}, nil
}
