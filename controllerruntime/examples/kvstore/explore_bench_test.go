package kvstore_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/properties"
)

// BenchmarkExplore explores the fixed operator to depth 1 with every
// sequence of up to two transitions among its first two specs, under
// the faithful faults: the work a user's exploration of an operator with
// CRDs repeats, each write admitted by the CRD's schema and rules. The
// operator reads no clock, so no bubble is needed.
//
//	go test ./examples/kvstore -run '^$' -bench Explore -count 6
func BenchmarkExplore(b *testing.B) {
	w, err := kvstore.NewWorld()
	if err != nil {
		b.Fatal(err)
	}
	sc := kvstore.Scenario("kvstore-fixed", w, kvstore.Options{})
	var res properties.ExploreResult
	for b.Loop() {
		if res, err = properties.Explore(sc, faithful, properties.ExploreOptions{Depth: 1, Inputs: 2}); err != nil {
			b.Fatal(err)
		}
		if res.Counterexample != nil {
			b.Fatal(res.Counterexample.Report())
		}
	}
	b.ReportMetric(float64(res.Executions), "executions")
}
