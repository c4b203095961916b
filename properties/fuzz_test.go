package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"pgregory.net/rapid"
)

// FuzzLevelTriggeredConverges is the convergence claim of the
// level-triggered controller with resync as a native Go fuzz target: the
// same property rapid.Check runs, with its fault schedule and
// interleaving decoded from the fuzzer's bytes. `go test` runs the seed
// corpus in testdata/fuzz/FuzzLevelTriggeredConverges;
//
//	go test ./properties -run '^$' -fuzz FuzzLevelTriggeredConverges -fuzztime 1m
//
// explores further with coverage guidance. rapid reads eight bytes of
// input per draw and skips an input that ends before the run does, so
// the corpus entries are 1.5 KB: zeros (no faults, every first choice)
// and seeded random bytes.
func FuzzLevelTriggeredConverges(f *testing.F) {
	mix := faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}
	f.Fuzz(rapid.MakeFuzz(properties.Converges(scenarios.ReplicaSetLevel(), mix)))
}
