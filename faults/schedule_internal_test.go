package faults

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKindFieldsAreWhatMarshalWrites: the fields the strict decoder lets
// each kind have are the ones MarshalJSON writes for a fault of that kind
// with every field set, so the two cannot drift apart.
func TestKindFieldsAreWhatMarshalWrites(t *testing.T) {
	target := EditTarget{Resource: "ReplicaSet", Path: "spec.replicas", Min: 1, Max: 5, Values: []any{"a"}, Recreate: true}
	edit := target
	edit.Owned = true // an edit's only field a rival does not take
	every := Schedule{
		{At: 1, Fault: Drop{Controller: "c", Resource: "Pod"}},
		{At: 1, Fault: Duplicate{Controller: "c", Resource: "Pod"}},
		{At: 1, Fault: Delay{Controller: "c", Resource: "Pod", For: 2}},
		{At: 1, Fault: Expire{Controller: "c", Resource: "Pod"}},
		{At: 1, Fault: Stale{Controller: "c", Resource: "Pod", Behind: 1, For: 2}},
		{At: 1, Fault: Restart{Controller: "c", Down: 1, AfterWrites: 1}},
		{At: 1, Fault: Partition{Controller: "c", For: 2}},
		{At: 1, Fault: APIError{Controller: "c", Error: ErrConflict, Count: 1}},
		{At: 1, Fault: TimeTravel{Controller: "c", Behind: 1, Landmark: 1, Down: 1}},
		{At: 1, Fault: Edit{Target: edit, Pick: 1, Value: 2, Choice: 1}},
		{At: 1, Fault: Rival{Target: target, Pick: 1, Value: 2, Choice: 1, Persistent: true}},
	}
	data, err := json.Marshal(every)
	require.NoError(t, err)
	var written []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &written))
	seen := map[Kind]bool{}
	for i, w := range written {
		k := every[i].Fault.Kind()
		seen[k] = true
		want := append([]string{"at", "kind"}, kindFields[k]...)
		assert.ElementsMatch(t, want, slices.Collect(maps.Keys(w)), "kind %s", k)
	}
	assert.ElementsMatch(t, slices.Collect(maps.Keys(kindFields)), Kinds(), "every kind has its fields")
	assert.Len(t, seen, len(Kinds()), "the test covers every kind")
}
