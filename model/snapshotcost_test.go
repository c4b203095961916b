package model_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/scenarios"
)

// The benchmarks of this file measure what a snapshot of the world would
// cost against what it would save, for docs/design.md ("Bounded
// exhaustive exploration", snapshots): a restore builds a fresh world and
// copies the snapshot's containers into it, where the explorer now
// replays the prefix's steps.
//
//	go test ./model -run '^$' -bench Snapshot -count 6

// replicaSetLevelWorld builds and starts the world of the catalog's
// replicaset-level row.
func replicaSetLevelWorld(b *testing.B) *model.Cluster {
	c, err := scenarios.ReplicaSetLevel().Build(model.Config{DiscardTrace: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	return c
}

// settled runs c's owed actions, the first each time, until it owes none:
// the ReplicaSet and its pods created, cached and reconciled, the state an
// exploration's early decisions are taken in.
func settled(c *model.Cluster) int {
	var acts []model.Action
	for c.Busy() {
		acts = c.Enabled(acts[:0])
		for _, a := range acts {
			if a.Kind.Owed() {
				c.Do(a)
				break
			}
		}
	}
	return c.Steps()
}

// BenchmarkSnapshotBuild is what a restore starts from: a world built
// and started.
func BenchmarkSnapshotBuild(b *testing.B) {
	for b.Loop() {
		replicaSetLevelWorld(b)
	}
}

// BenchmarkSnapshotSteps is steps a replay takes, per step, from the
// start to the settled world (creates, deliveries and reconciles, the
// dearer steps of a run).
func BenchmarkSnapshotSteps(b *testing.B) {
	steps := 0
	for b.Loop() {
		b.StopTimer()
		c := replicaSetLevelWorld(b)
		b.StartTimer()
		steps += settled(c)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
}

// BenchmarkSnapshotCopy is the least a snapshot copies of the settled
// world.
func BenchmarkSnapshotCopy(b *testing.B) {
	c := replicaSetLevelWorld(b)
	settled(c)
	for b.Loop() {
		model.CopyContainers(c)
	}
}
