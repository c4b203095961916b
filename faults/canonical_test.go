package faults_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCanonicalFaultSpace: the canonical space has every target with the
// extremes of each parameter, once each, within the budget, and every
// fault round-trips through a schedule's JSON (which validates it).
func TestCanonicalFaultSpace(t *testing.T) {
	space, err := faults.Canonical(faults.Mix(faults.Kinds()), topo, budget)
	require.NoError(t, err)
	count := map[faults.Kind]int{}
	seen := map[string]bool{}
	for _, f := range space {
		count[f.Kind()]++
		key := fmt.Sprintf("%T %+v", f, f)
		assert.False(t, seen[key], "duplicate %s", f)
		seen[key] = true
	}
	informers, controllers := 3, 2 // a: Pod, ReplicaSet; b: Pod
	assert.Equal(t, map[faults.Kind]int{
		faults.KindDrop:       informers,
		faults.KindDuplicate:  informers,
		faults.KindExpire:     informers,
		faults.KindDelay:      informers * 2,                              // for 1 and MaxDown
		faults.KindStale:      informers * 2 * 2,                          // behind 1 and 5, for 1 and MaxDown
		faults.KindRestart:    controllers * 2 * 3,                        // down 1 and MaxDown, after 0, 1, 2 writes
		faults.KindPartition:  controllers * 2,                            // for 1 and MaxDown
		faults.KindTimeTravel: controllers * 2 * 2,                        // behind 1 and 12, down 1 and MaxDown
		faults.KindAPIError:   controllers * len(faults.ErrorKinds()) * 2, // 1 and 3 failures
		faults.KindEdit:       2 * (1 + 2),                                // picks 0 and 1; Pod without a path, replicas at 0 and 5
		faults.KindRival:      2 * 2 * 2,                                  // picks 0 and 1, status.replicas at 0 and 9, once and persistent
	}, count)

	sched := make(faults.Schedule, len(space))
	for i, f := range space {
		sched[i] = faults.Timed{At: budget.Horizon, Fault: f}
	}
	data, err := json.Marshal(sched)
	require.NoError(t, err)
	var back faults.Schedule
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, sched.String(), back.String())
}

func TestCanonicalRejectsWhatCheckRejects(t *testing.T) {
	_, err := faults.Canonical(faults.Mix{faults.KindEdit}, faults.Topology{Targets: topo.Targets}, budget)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fault kind edit needs edit targets in the scenario")
}

func TestCanonicalDurationsCollapse(t *testing.T) {
	space, err := faults.Canonical(faults.Mix{faults.KindPartition}, topo, faults.Budget{MaxFaults: 1, MaxDown: 1})
	require.NoError(t, err)
	assert.Len(t, space, 2, "MaxDown 1: one duration per controller")
}
