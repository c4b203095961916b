package model

import "fmt"

// Eviction follows Kubernetes' eviction subresource: a pod may be evicted
// only if every PodDisruptionBudget selecting it still allows a disruption.
// A budget is an object of kind PDBKind whose spec holds a label selector,
// read by SpecSelector (a budget without one covers no pod), and whose
// status holds "disruptionsAllowed", kept up to date by a disruption
// controller; the server takes one disruption from each budget it evicts
// under.
const (
	// PDBKind is the kind of a PodDisruptionBudget.
	PDBKind = "PodDisruptionBudget"
	// Evictor is the writer name under which the server updates budgets.
	Evictor = "eviction"
)

// Evict deletes a pod on behalf of caller unless a disruption budget
// forbids it, in which case it fails with TooManyRequests naming the budget,
// as the eviction API answers 429.
func (s *Server) Evict(caller string, ref Ref) error {
	failure, applied := s.check(caller, VerbEvict, ref)
	if failure != nil && !applied {
		return failure
	}
	pod := s.lookup(ref)
	if pod == nil {
		return s.notFound(ref)
	}
	var budgets []*Object
	s.Each(PDBKind, ListOptions{Namespace: pod.Namespace}, func(pdb *Object) bool {
		if sel, ok := SpecSelector(pdb); ok && sel.Matches(pod.Labels) {
			budgets = append(budgets, pdb)
		}
		return true
	})
	for _, pdb := range budgets {
		if pdb.Status.Int("disruptionsAllowed") <= 0 {
			return &StatusError{Reason: ReasonTooManyReqs, RetryAfter: 10, Message: fmt.Sprintf(
				"Cannot evict pod as it would violate the pod's disruption budget %s (minAvailable %d, currentHealthy %d, disruptionsAllowed %d)",
				pdb.Ref(), pdb.Spec.Int("minAvailable"), pdb.Status.Int("currentHealthy"), pdb.Status.Int("disruptionsAllowed"))}
		}
	}
	err := s.unchecked(func() error {
		for _, pdb := range budgets {
			next := pdb.DeepCopy()
			next.Status.Set("disruptionsAllowed", pdb.Status.Int("disruptionsAllowed")-1)
			if err := s.UpdateStatus(Evictor, next); err != nil {
				return err
			}
		}
		return s.delete(caller, ref, DeleteOptions{UID: pod.UID}, false)
	})
	if err != nil {
		return err
	}
	return failure
}
