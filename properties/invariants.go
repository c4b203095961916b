package properties

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// Helpers for common invariants. Each counts live objects (not being
// deleted) in the API server's state.

// AtMostPerOwner is the invariant that no object of ownerKind controls
// more than limit(owner) live objects of kind: "at most replicas+1 pods per
// ReplicaSet".
func AtMostPerOwner(kind, ownerKind string, limit func(owner *model.Object) int64) Invariant {
	return Invariant{
		Name: fmt.Sprintf("bounded %ss per %s", kind, ownerKind),
		Check: func(s model.State) error {
			for _, owner := range s.List(ownerKind, model.ListOptions{}) {
				var n int64
				for _, o := range s.List(kind, model.ListOptions{Namespace: owner.Namespace, Owner: owner.UID}) {
					if o.IsControlledBy(owner) && !o.Deleting() {
						n++
					}
				}
				if max := limit(owner); n > max {
					return fmt.Errorf("%s controls %d %ss, more than %d", owner.Ref(), n, kind, max)
				}
			}
			return nil
		},
	}
}

// CountWithLabels is the invariant that the number of live objects of kind
// matching sel stays within [min, max].
func CountWithLabels(kind string, sel model.Selector, min, max int) Invariant {
	return Invariant{
		Name: fmt.Sprintf("%d to %d %ss with %s", min, max, kind, sel),
		Check: func(s model.State) error {
			n := 0
			for _, o := range s.List(kind, model.ListOptions{Selector: sel}) {
				if !o.Deleting() {
					n++
				}
			}
			if n < min || n > max {
				return fmt.Errorf("%d %ss with %s, outside [%d, %d]", n, kind, sel, min, max)
			}
			return nil
		},
	}
}
