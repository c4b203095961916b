package deployment

import (
	"fmt"
	"hash"
	"slices"

	"github.com/converge-sim/converge/model"
)

// Fingerprint writes the controller's expectations, by key, for bounded
// exploration (model.Fingerprinter).
func (r *reconciler) Fingerprint(h hash.Hash64) {
	keys := make([]string, 0, len(r.expect))
	for k := range r.expect {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%q=%d;", k, r.expect[k])
	}
}

var _ model.Fingerprinter = (*reconciler)(nil)
