package properties

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// BenchmarkCoverageRecording measures what coverage costs a run
// (docs/design.md, "Coverage-guided search"): whole runs of a ReplicaSet
// of 3 under the level-triggered controller, with chaos and the healable
// faults it converges under, drawn as the coverage-guided strategy draws
// them; "none" records no coverage, "edges" reads the trace's edges after
// the run (the strategy's coverage), "fingerprints" hashes the cluster's
// state at every step of the fault phase (the alternative). read-ns/run
// is the time spent reading the coverage after the run; the fingerprints'
// cost is inside the run's own time.
//
//	go test ./properties -run '^$' -bench BenchmarkCoverageRecording -benchtime 300x
func BenchmarkCoverageRecording(b *testing.B) {
	sc := Scenario{
		Name: "coverage-bench",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true})); err != nil {
				return nil, err
			}
			if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 2); err != nil {
				return nil, err
			}
			return c, c.Apply(replicaset.New("default", "web", 3))
		},
	}
	p, err := Prepare(sc, faults.Mix{faults.KindRestart, faults.KindDuplicate, faults.KindDelay, faults.KindAPIError})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"none", "edges", "fingerprints"} {
		b.Run(mode, func(b *testing.B) {
			features := 0
			var recording time.Duration
			for i := range b.N {
				rng := rand.New(rand.NewPCG(1, uint64(i)))
				ch := &coverageChooser{rng: rng, fingerprints: mode == "fingerprints"}
				out, err := p.execute(p.freshSchedule(rng), ch, RunOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if mode != "none" {
					start := time.Now()
					features += len(ch.coverage(out))
					recording += time.Since(start)
				}
			}
			b.ReportMetric(float64(features)/float64(b.N), "features/run")
			b.ReportMetric(float64(recording.Nanoseconds())/float64(b.N), "read-ns/run")
		})
	}
}
