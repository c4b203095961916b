package model

import (
	"fmt"
	"slices"
	"strings"
)

// Propagation is a delete's propagation policy: what becomes of the
// deleted object's dependents (the objects whose owner references name
// it). The values are Kubernetes' metav1.DeletionPropagation values. See
// docs/design.md, "Deletion propagation".
type Propagation string

const (
	// PropagationBackground deletes the object now; the garbage collector
	// deletes its dependents afterwards, one step at a time. The empty
	// policy means the same.
	PropagationBackground Propagation = "Background"
	// PropagationOrphan keeps the dependents: the object gets the orphan
	// finalizer and a deletion timestamp; the collector removes the
	// dependents' owner references to it, then the finalizer.
	PropagationOrphan Propagation = "Orphan"
	// PropagationForeground keeps the object, with the foregroundDeletion
	// finalizer and a deletion timestamp, while the collector deletes its
	// dependents; the finalizer goes when no dependent that blocks owner
	// deletion is left.
	PropagationForeground Propagation = "Foreground"
)

// The finalizers of the Orphan and Foreground policies, named as in
// Kubernetes.
const (
	FinalizerOrphan     = "orphan"
	FinalizerForeground = "foregroundDeletion"
)

func (p Propagation) validate(ref Ref) error {
	switch p {
	case "", PropagationBackground, PropagationOrphan, PropagationForeground:
		return nil
	}
	msg := fmt.Sprintf("Unsupported value: %q: supported values: %q, %q, %q",
		string(p), PropagationBackground, PropagationForeground, PropagationOrphan)
	err := statusErr(ReasonInvalid, "delete %s: propagationPolicy: %s", ref, msg)
	err.Causes = []Cause{{Type: "FieldValueNotSupported", Field: "propagationPolicy", Message: msg}}
	return err
}

// finalizer returns the finalizer the policy adds to the deleted object, or
// "" for Background.
func (p Propagation) finalizer() string {
	switch p {
	case PropagationOrphan:
		return FinalizerOrphan
	case PropagationForeground:
		return FinalizerForeground
	}
	return ""
}

// label is how a write shows the policy: "" for Background, which is the
// default and leaves traces as they were, "orphan" or "foreground".
func (p Propagation) label() string {
	if p.finalizer() == "" {
		return ""
	}
	return strings.ToLower(string(p))
}

// finalizers returns the finalizers a delete with policy p leaves on an
// object that has fs, as Kubernetes' API server computes them: a policy
// given explicitly replaces the orphan and foregroundDeletion finalizers
// with its own (none for Background); no policy keeps them. changed
// reports whether they differ from fs.
func (p Propagation) finalizers(fs []string) ([]string, bool) {
	if p == "" {
		return fs, false
	}
	want := p.finalizer()
	var out []string
	for _, f := range fs {
		if f != FinalizerOrphan && f != FinalizerForeground {
			out = append(out, f)
		}
	}
	if want != "" {
		out = append(out, want)
	}
	if len(out) == len(fs) && (want == "" || slices.Contains(fs, want)) {
		return fs, false
	}
	return out, true
}

// deleteWithFinalizers makes the delete of stored whose policy changes its
// finalizers to fs: with none left the object goes; otherwise it gets fs
// and a deletion timestamp (kept if it has one), and is queued for the
// garbage collector if it now waits on an Orphan or Foreground delete.
func (s *Server) deleteWithFinalizers(stored *Object, fs []string, w Write) {
	next := *stored
	next.Finalizers = fs
	s.rv++
	next.ResourceVersion = s.rv
	if len(fs) == 0 {
		s.remove(&next, w)
		return
	}
	if !stored.Deleting() {
		now := s.now()
		next.DeletionTimestamp = &now
	}
	s.store(next.Kind).put(&next)
	w.New = &next
	s.emit(Modified, &next, w)
	if propagating(&next) != "" {
		s.enqueueGC(next.Ref())
	}
}

// PropagationOf returns the policy of the Orphan or Foreground delete o is
// waiting on (its finalizer and deletion timestamp say so), or "".
func PropagationOf(o *Object) Propagation {
	switch propagating(o) {
	case FinalizerOrphan:
		return PropagationOrphan
	case FinalizerForeground:
		return PropagationForeground
	}
	return ""
}

// propagating returns the finalizer of the Orphan or Foreground delete o is
// waiting on, orphan first, or "".
func propagating(o *Object) string {
	if !o.Deleting() {
		return ""
	}
	for _, f := range []string{FinalizerOrphan, FinalizerForeground} {
		if slices.Contains(o.Finalizers, f) {
			return f
		}
	}
	return ""
}

// wakeOwners queues for the garbage collector every owner of o that waits
// on an Orphan or Foreground delete: a change to one of its dependents may
// be what it waits for.
func (s *Server) wakeOwners(o *Object) {
	for _, r := range o.OwnerReferences {
		ref, ok := s.uids[r.UID]
		if !ok {
			continue
		}
		if owner := s.lookup(ref); owner != nil && propagating(owner) != "" {
			s.enqueueGC(ref)
		}
	}
}

// dependents returns the stored objects with an owner reference to uid, by
// kind and then key.
func (s *Server) dependents(uid UID) []*Object {
	var out []*Object
	for _, kind := range s.kindSeq {
		st := s.kinds[kind]
		st.ownerIndex()[string(uid)].each(func(e entry) bool {
			out = append(out, e.obj)
			return true
		})
	}
	return out
}

// withoutOwner returns a copy of o for an update that drops its owner
// references to uid.
func withoutOwner(o *Object, uid UID) *Object {
	c := o.DeepCopy()
	c.OwnerReferences = slices.DeleteFunc(c.OwnerReferences, func(r OwnerReference) bool { return r.UID == uid })
	if len(c.OwnerReferences) == 0 {
		c.OwnerReferences = nil
	}
	return c
}

// propagate makes one step of an Orphan or Foreground delete of owner,
// which waits on finalizer f, and says what it did.
//
// Orphan: the first dependent loses its owner references to owner; with no
// dependent left, the orphan finalizer goes.
//
// Foreground: the first dependent not being deleted is deleted (in the
// foreground itself if it has dependents, as Kubernetes' collector does),
// or, if it has another owner that is neither gone nor deleted in the
// foreground, loses its reference to owner. With every dependent being
// deleted or gone, the foregroundDeletion finalizer goes once none of
// them blocks owner deletion; until then owner waits, and the dependents'
// writes wake it (wakeOwners).
//
// Either way the owner is queued again while it has more to do. A write
// that fails (an admission step refused it) does not queue it again, so the
// collector never spins: the next write to one of its dependents wakes it.
func (s *Server) propagate(owner *Object, f string) (string, error) {
	deps := s.dependents(owner.UID)
	policy := "orphan"
	if f == FinalizerForeground {
		policy = "foreground"
	}
	if f == FinalizerOrphan {
		if len(deps) > 0 {
			d := deps[0]
			return policy + ": " + d.Ref().String() + " no longer owned by " + owner.Ref().String(),
				s.again(owner, s.Update(GarbageCollector, withoutOwner(d, owner.UID)))
		}
		return policy + ": " + owner.Ref().String() + " has no dependents left; finalizer " + f + " removed", s.dropFinalizer(owner, f)
	}
	blocking := 0
	for _, d := range deps {
		if d.Deleting() {
			if blocks(d, owner.UID) {
				blocking++
			}
			continue
		}
		if s.solidOwner(d, owner.UID) {
			return policy + ": " + d.Ref().String() + " has another owner: no longer owned by " + owner.Ref().String(),
				s.again(owner, s.Update(GarbageCollector, withoutOwner(d, owner.UID)))
		}
		p := PropagationBackground
		if len(s.dependents(d.UID)) > 0 {
			p = PropagationForeground
		}
		return policy + ": dependent " + d.Ref().String() + " of " + owner.Ref().String() + " deleted",
			s.again(owner, s.Delete(GarbageCollector, d.Ref(), DeleteOptions{UID: d.UID, Propagation: p}))
	}
	if blocking > 0 {
		return policy + ": " + owner.Ref().String() + " waits for its blocking dependents to go", nil
	}
	return policy + ": " + owner.Ref().String() + " has no blocking dependents left; finalizer " + f + " removed", s.dropFinalizer(owner, f)
}

// again queues owner for another step of its delete if err is nil, and
// returns err.
func (s *Server) again(owner *Object, err error) error {
	if err == nil {
		s.enqueueGC(owner.Ref())
	}
	return err
}

// blocks reports whether o's owner reference to uid blocks the owner's
// foreground deletion.
func blocks(o *Object, uid UID) bool {
	for _, r := range o.OwnerReferences {
		if r.UID == uid && r.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// solidOwner reports whether o has an owner other than uid that exists
// and is not being deleted in the foreground.
func (s *Server) solidOwner(o *Object, uid UID) bool {
	for _, r := range o.OwnerReferences {
		if r.UID == uid {
			continue
		}
		ref, ok := s.uids[r.UID]
		if !ok {
			continue
		}
		if owner := s.lookup(ref); owner != nil && !(owner.Deleting() && slices.Contains(owner.Finalizers, FinalizerForeground)) {
			return true
		}
	}
	return false
}

// dropFinalizer removes finalizer f from o, which completes its delete when
// f was the last.
func (s *Server) dropFinalizer(o *Object, f string) error {
	c := o.DeepCopy()
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(x string) bool { return x == f })
	if len(c.Finalizers) == 0 {
		c.Finalizers = nil
	}
	return s.Update(GarbageCollector, c)
}
