package fuzzrun_test

import (
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
)

// TestABacklogDrainsInQuiescence: under PCT, seed 337 lets the level
// ReplicaSet controller reconcile ahead of its Pod informer for the whole
// fault phase, until hundreds of its own events are in flight. With no
// fault left, the fair scheduler used to deliver one of them per round
// while each reconcile added one, so the backlog never drained and a
// controller that converges was reported as a hang. Now an informer
// delivers what is in flight first (docs/design.md, "Quiescence").
func TestABacklogDrainsInQuiescence(t *testing.T) {
	code, out, stderr := cli(t, "-scenario", "replicaset-level", "-faults", "drop,restart,edit", "-strategy", "pct",
		"-seed", "337", "-runs", "1", "-workers", "2", "-run-timeout", "30s")
	assert.Equal(t, fuzzrun.ExitOK, code, "%s\n%s", out, stderr)
}
