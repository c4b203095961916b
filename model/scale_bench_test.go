package model_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/internal/cputime"
	"github.com/converge-sim/converge/model"
)

// podsPerReplicaSet is the shape of the scaling benchmark's clusters.
const podsPerReplicaSet = 10

type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }

// scaledCluster builds a started cluster of pods ReplicaSet-controlled
// pods, settled, with a chaos actor and a user who keep it busy. The resync
// period grows with the cluster, as real clusters resync in hours, not
// seconds (trap 9 in docs/design.md).
func scaledCluster(b *testing.B, pods int) *model.Cluster {
	c := model.NewCluster(model.Config{DiscardTrace: true})
	resync := model.Time(max(20, pods/podsPerReplicaSet))
	if err := c.AddController(replicaset.Level(replicaset.LevelOptions{Resync: resync, Expectations: true})); err != nil {
		b.Fatal(err)
	}
	if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 1<<30); err != nil {
		b.Fatal(err)
	}
	if err := c.AddActor(actors.Scaler{Kind: replicaset.Kind, Field: "replicas", Min: podsPerReplicaSet - 1, Max: podsPerReplicaSet + 1}, 1<<30); err != nil {
		b.Fatal(err)
	}
	out := c.Outside("setup")
	for i := range pods / podsPerReplicaSet {
		rs := replicaset.New("default", fmt.Sprintf("rs-%05d", i), podsPerReplicaSet)
		if err := out.Create(rs); err != nil {
			b.Fatal(err)
		}
		for range podsPerReplicaSet {
			if err := out.Create(replicaset.NewPod(rs)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	for c.Busy() {
		c.Do(c.Enabled(nil)[0])
	}
	return c
}

// BenchmarkStepCost reports the cost of one simulated step, random among
// those enabled (deliveries, reconciles, resyncs, rescales), with one chaos
// delete or rescale every 50 steps, as the cluster grows from 10 to 10,000
// pods. The mix of steps shifts with size (a small cluster idles and fires
// cheap timers more often), so it also reports the cost of a delivery and
// of a reconcile alone.
func BenchmarkStepCost(b *testing.B) {
	for _, pods := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("pods=%d", pods), func(b *testing.B) {
			c := scaledCluster(b, pods)
			ch := prng{rand.New(rand.NewPCG(1, 2))}
			c.SetChooser(ch)
			acts := make([]model.Action, 0, 16)
			inside := make([]model.Action, 0, 16)
			b.ReportAllocs()
			spent := map[model.ActionKind]time.Duration{}
			count := map[model.ActionKind]int{}
			cpu := cputime.Process()
			for i := 0; b.Loop(); i++ {
				acts = c.Enabled(acts[:0])
				inside = inside[:0]
				for _, a := range acts {
					if a.Kind != model.ActActor || i%50 == 0 {
						inside = append(inside, a)
					}
				}
				a := inside[ch.r.IntN(len(inside))]
				start := time.Now()
				c.Do(a)
				spent[a.Kind] += time.Since(start)
				count[a.Kind]++
			}
			cpu = cputime.Process() - cpu
			b.ReportMetric(float64(c.Server().Count(replicaset.PodKind)), "pods")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			for kind, unit := range map[model.ActionKind]string{model.ActDeliver: "ns/deliver", model.ActReconcile: "ns/reconcile"} {
				if count[kind] > 0 {
					b.ReportMetric(float64(spent[kind].Nanoseconds())/float64(count[kind]), unit)
				}
			}
		})
	}
}
