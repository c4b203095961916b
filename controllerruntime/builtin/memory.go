package builtin

import (
	"encoding/binary"
	"hash"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// What the built-in controllers remember between reconciles, written for
// bounded exploration (model.Fingerprinter), so that its guarantee covers
// them instead of naming them as unfingerprinted. The Deployment,
// ReplicaSet and Job controllers keep nothing but their client and
// manager (the Deployment controller's kept template hashes are a
// function of the versions it read, and change nothing it does); the
// kubelet keeps the transitions and failures it drew.

// Fingerprint writes nothing: the controller keeps no memory that
// changes what it does.
func (*deploymentController) Fingerprint(hash.Hash64) {}

// Fingerprint writes nothing: the controller keeps no memory.
func (*replicaSetController) Fingerprint(hash.Hash64) {}

// Fingerprint writes nothing: the controller keeps no memory.
func (*jobController) Fingerprint(hash.Hash64) {}

// Fingerprint writes when each pod's next transition is due and whether
// each pod fails, as drawn, by pod UID in order, each map after its size.
func (k *kubelet) Fingerprint(h hash.Hash64) {
	due, drawn := slices.Sorted(maps.Keys(k.due)), slices.Sorted(maps.Keys(k.drawn))
	buf := binary.AppendUvarint(nil, uint64(len(due)))
	for _, uid := range due {
		buf = appendUID(buf, uid)
		buf = binary.AppendVarint(buf, int64(k.due[uid]))
	}
	buf = binary.AppendUvarint(buf, uint64(len(drawn)))
	for _, uid := range drawn {
		buf = appendUID(buf, uid)
		if k.drawn[uid] {
			buf = append(buf, 1)
		} else {
			buf = append(buf, 0)
		}
	}
	_, _ = h.Write(buf)
}

// appendUID appends a UID after its length.
func appendUID(buf []byte, uid types.UID) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(uid)))
	return append(buf, uid...)
}
