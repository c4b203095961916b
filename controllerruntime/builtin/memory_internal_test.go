package builtin

import (
	"hash/fnv"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/types"
)

// TestKubeletFingerprintWritesWhatItDrew: the kubelet's fingerprint
// changes with each due time and each drawn failure, tells a due time from
// a drawn failure of the same pod, and does not depend on the order its
// maps were filled in.
func TestKubeletFingerprintWritesWhatItDrew(t *testing.T) {
	fingerprint := func(due map[types.UID]model.Time, drawn map[types.UID]bool) uint64 {
		h := fnv.New64a()
		(&kubelet{due: due, drawn: drawn}).Fingerprint(h)
		return h.Sum64()
	}
	seen := map[uint64]string{}
	for name, k := range map[string]uint64{
		"nothing":      fingerprint(nil, nil),
		"a due at 3":   fingerprint(map[types.UID]model.Time{"a": 3}, nil),
		"a due at 4":   fingerprint(map[types.UID]model.Time{"a": 4}, nil),
		"b due at 3":   fingerprint(map[types.UID]model.Time{"b": 3}, nil),
		"a fails":      fingerprint(nil, map[types.UID]bool{"a": true}),
		"a runs":       fingerprint(nil, map[types.UID]bool{"a": false}),
		"a due, fails": fingerprint(map[types.UID]model.Time{"a": 3}, map[types.UID]bool{"a": true}),
	} {
		assert.NotContains(t, seen, k, "%s hashes as %s", name, seen[k])
		seen[k] = name
	}
	due := map[types.UID]model.Time{}
	for i := range 50 {
		due[types.UID(rune('a'+i%26))+types.UID(rune('a'+i/26))] = model.Time(i)
	}
	assert.Equal(t, fingerprint(due, nil), fingerprint(due, nil), "map order")
}
