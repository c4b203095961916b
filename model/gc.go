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

// CollectGarbage takes the next queued object and makes one write for it:
// a dependent still orphaned is deleted; an object waiting on an Orphan or
// Foreground delete gets one step of it (see propagate). It returns the
// object it looked at.
func (s *Server) CollectGarbage() (Ref, bool) {
	if len(s.gcQueue) == 0 {
		return Ref{}, false
	}
	ref := s.gcQueue[0]
	s.gcQueue = s.gcQueue[1:]
	delete(s.gcSet, ref)
	s.gcDid = ""
	o := s.lookup(ref)
	if o == nil {
		return ref, true
	}
	if f := propagating(o); f != "" {
		var err error
		// The collector is part of the control plane: faults never fail it.
		_ = s.unchecked(func() error {
			s.gcDid, err = s.propagate(o, f)
			return nil
		})
		if err != nil {
			s.gcDid += " (failed: " + err.Error() + ")"
		}
		return ref, true
	}
	if s.orphaned(o) && !o.Deleting() {
		// The collector is part of the control plane: faults never fail it.
		mark := s.rejectSeq
		err := s.unchecked(func() error { return s.Delete(GarbageCollector, ref, DeleteOptions{UID: o.UID}) })
		switch {
		case err != nil && s.rejectSeq != mark:
			// An admission step (a webhook) refused the delete: the
			// rejection is recorded (Rejections), the dependent stays,
			// and the next write to it queues it again (see orphaned).
			s.gcDid = "delete of orphan " + ref.String() + " refused: " + err.Error()
		case err != nil:
			panic(fmt.Sprintf("model: garbage collector could not delete %s: %v", ref, err))
		}
	}
	return ref, true
}
