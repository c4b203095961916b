package replicaset

import (
	"cmp"
	"fmt"
	"hash"
	"maps"
	"slices"

	"github.com/converge-sim/converge/model"
)

// Fingerprint writes the controller's expectations, by key, for bounded
// exploration (model.Fingerprinter).
func (r *level) Fingerprint(h hash.Hash64) {
	reqs := slices.SortedFunc(maps.Keys(r.expect), func(a, b model.Request) int { return cmp.Compare(a.Key(), b.Key()) })
	for _, req := range reqs {
		e := r.expect[req]
		fmt.Fprintf(h, "%q rv=%d since=%d deletes=", req.Key(), e.rv, e.since)
		for _, o := range e.deletes {
			fmt.Fprintf(h, "%q@%d,", o.Name, o.ResourceVersion)
		}
		fmt.Fprint(h, ";")
	}
}

// Fingerprint writes the controller's counts and pod lists, by key, for
// bounded exploration (model.Fingerprinter).
func (h *edge) Fingerprint(w hash.Hash64) {
	for _, key := range slices.Sorted(maps.Keys(h.rs)) {
		st := h.rs[key]
		fmt.Fprintf(w, "%q want=%d live=%d created=%q deleting=%q", key, st.want, st.live, st.created, slices.Sorted(maps.Keys(st.deleting)))
		if st.obj != nil {
			fmt.Fprintf(w, " obj=%s@%d", st.obj.UID, st.obj.ResourceVersion)
		}
		fmt.Fprint(w, ";")
	}
}

var (
	_ model.Fingerprinter = (*level)(nil)
	_ model.Fingerprinter = (*edge)(nil)
)
