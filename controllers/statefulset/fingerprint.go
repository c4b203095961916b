package statefulset

import (
	"fmt"
	"hash"
	"maps"
	"slices"

	"github.com/converge-sim/converge/model"
)

// Fingerprint writes the controller's memory, its expectations per
// StatefulSet, for bounded exploration (model.Fingerprinter).
func (r *reconciler) Fingerprint(h hash.Hash64) {
	for _, key := range slices.Sorted(maps.Keys(r.expect)) {
		e := r.expect[key]
		fmt.Fprintf(h, "%q rv=%d", key, e.rv)
		for _, d := range e.deletes {
			fmt.Fprintf(h, " -%s/%s", d.ref, d.uid)
		}
		fmt.Fprint(h, ";")
	}
}

var _ model.Fingerprinter = (*reconciler)(nil)
