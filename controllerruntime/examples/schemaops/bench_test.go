package schemaops_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }

// BenchmarkReconcilesPerSecond runs the capped Batch controller's
// scenario in whole runs with random interleavings, with the CRDs served
// (every write pruned, defaulted and validated) and without, and reports
// reconciles per second of wall time, everything included.
func BenchmarkReconcilesPerSecond(b *testing.B) {
	w, err := schemaops.NewWorld()
	if err != nil {
		b.Fatal(err)
	}
	for _, validate := range []bool{true, false} {
		name := "validation=off"
		if validate {
			name = "validation=on"
		}
		b.Run(name, func(b *testing.B) {
			sc := w.BatchScenario("batch-capped", true, validate)
			reconciles := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out, err := properties.Execute(sc, nil, prng{rand.New(rand.NewPCG(uint64(i), 7))}, properties.RunOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if out.Failure != nil {
					b.Fatal(out.Failure.Summary)
				}
				for _, rec := range out.Cluster.Trace().Records {
					if rec.Kind == model.ActReconcile {
						reconciles++
					}
				}
			}
			b.ReportMetric(float64(reconciles)/b.Elapsed().Seconds(), "reconciles/s")
		})
	}
}
