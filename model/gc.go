package model

import "fmt"

// GarbageCollector is the caller name the server's garbage collector writes
// under.
const GarbageCollector = "garbage-collector"

// orphaned reports whether o has owners and none of them exists any more.
func (s *Server) orphaned(o *Object) bool {
	if len(o.OwnerReferences) == 0 {
		return false
	}
	for _, r := range o.OwnerReferences {
		if s.Exists(r.UID) {
			return false
		}
	}
	return true
}

func (s *Server) enqueueGC(ref Ref) {
	if !s.gcSet[ref] {
		s.gcSet[ref] = true
		s.gcQueue = append(s.gcQueue, ref)
	}
}

// GCPending reports whether the garbage collector has work.
func (s *Server) GCPending() bool { return len(s.gcQueue) > 0 }

// CollectGarbage deletes the next queued dependent if it is still orphaned.
// It returns the dependent it looked at.
func (s *Server) CollectGarbage() (Ref, bool) {
	if len(s.gcQueue) == 0 {
		return Ref{}, false
	}
	ref := s.gcQueue[0]
	s.gcQueue = s.gcQueue[1:]
	delete(s.gcSet, ref)
	o := s.lookup(ref)
	if o != nil && s.orphaned(o) && !o.Deleting() {
		// The collector is part of the control plane: faults never fail it.
		err := s.unchecked(func() error { return s.Delete(GarbageCollector, ref, DeleteOptions{UID: o.UID}) })
		if err != nil {
			panic(fmt.Sprintf("model: garbage collector could not delete %s: %v", ref, err))
		}
	}
	return ref, true
}
