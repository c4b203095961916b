package model

import "slices"

// Detectors for bugs that leave no trace in the API server's state until it
// is too late: mutating a cached object, and overwriting another writer's
// change with an unconditional write.

// CacheMutation is a controller modifying an object it read from its
// informer cache without copying it (client-go's cache mutation detector
// finds the same bug). The object is shared: the cache, every other
// informer and the server's store all saw the change.
type CacheMutation struct {
	Controller string
	Object     Ref
	Changes    []FieldChange
}

// LostUpdate is an unconditional write (no resourceVersion precondition)
// that put a field back to the value its writer had read, undoing a change
// another writer made in between.
type LostUpdate struct {
	Writer     string
	Object     Ref
	Path       string
	Lost       any    // the other writer's value, overwritten
	Restored   any    // the stale value written back
	LostWriter string // who wrote the lost value
	BaseRV     uint64 // the version the writer had read
	StoredRV   uint64 // the version it overwrote
}

// lent is an object handed out by a zero-copy read, with a copy to compare
// it against at the end of the step.
type lent struct {
	controller string
	object     *Object
	snapshot   *snapshot
}

// snapshot is the copy of a lent object, as DeepCopy copies it, with its
// owner references held in the snapshot's own room when there is one, so
// that a typical pod's copy is a single allocation. Labels, Spec and Status
// are values no controller can change in place, so the snapshot shares
// them with the version: a controller that changes them on a lent object
// gives it new ones, which matches sees.
type snapshot struct {
	of        *Object // the object version copied
	meta      Object  // OwnerReferences and DeletionTimestamp may point into the snapshot
	deletion  Time
	ownerRoom [1]OwnerReference
}

func newSnapshot(o *Object) *snapshot {
	s := &snapshot{of: o, meta: *o}
	s.meta.key, s.meta.writer, s.meta.snap = "", "", nil // as DeepCopy
	s.meta.Finalizers = slices.Clone(o.Finalizers)
	if len(o.OwnerReferences) <= len(s.ownerRoom) && o.OwnerReferences != nil {
		s.meta.OwnerReferences = append(s.ownerRoom[:0:len(o.OwnerReferences)], o.OwnerReferences...)
	} else {
		s.meta.OwnerReferences = slices.Clone(o.OwnerReferences)
	}
	if o.DeletionTimestamp != nil {
		s.deletion = *o.DeletionTimestamp
		s.meta.DeletionTimestamp = &s.deletion
	}
	return s
}

// matches reports whether o still equals the snapshot, field by field.
func (s *snapshot) matches(o *Object) bool { return equalObjects(o, &s.meta) }

// object returns the snapshot as an object of its own, as DeepCopy would
// have made it.
func (s *snapshot) object() *Object {
	o := s.meta
	o.Finalizers = slices.Clone(s.meta.Finalizers)
	o.OwnerReferences = slices.Clone(s.meta.OwnerReferences)
	if s.meta.DeletionTimestamp != nil {
		t := s.deletion
		o.DeletionTimestamp = &t
	}
	return &o
}

// lend records a zero-copy read. Stored objects never change, so one copy
// per version serves every read of it: a controller that lists the same
// unchanged pods on every reconcile pays for the copies once. The copy is
// kept on the version itself (Object.snap), not in a map keyed by it: at
// 10,000 pods that map's lookup was a cache miss per lent object, and the
// object is read anyway. It lives as long as the version does.
func (c *Cluster) lend(controller string, o *Object) {
	snap := o.snap
	if snap == nil || snap.of != o { // none yet, or copied with a struct copy of another version
		snap = newSnapshot(o)
		o.snap = snap
	}
	c.lent = append(c.lent, lent{controller: controller, object: o, snapshot: snap})
}

// checkLent compares every object lent during the step with its copy. The
// first mutation is kept; every mutated object is restored, so the run's
// state stays what the server decided.
func (c *Cluster) checkLent() {
	for _, l := range c.lent {
		if l.snapshot.matches(l.object) {
			continue
		}
		snap := l.snapshot.object()
		if c.mutation == nil {
			changes := Diff(snap, l.object)
			c.mutation = &CacheMutation{Controller: l.controller, Object: snap.Ref(), Changes: changes}
			c.notef("%s mutated its cached %s", l.controller, snap.Ref())
		}
		*l.object = *snap
		l.object.snap = l.snapshot // the version is its copy again
	}
	clear(c.lent)
	c.lent = c.lent[:0]
}

func (c *Cluster) noteLostUpdate(l LostUpdate) {
	c.notef("lost update: %s wrote %s=%s of %s from version %d over %s's %s (version %d)",
		l.Writer, l.Path, FormatValue(l.Restored), l.Object, l.BaseRV, l.LostWriter, FormatValue(l.Lost), l.StoredRV)
	if c.lostUpdate == nil {
		c.lostUpdate = &l
	}
}

// CacheMutation returns the first cache mutation detected, or nil.
func (c *Cluster) CacheMutation() *CacheMutation { return c.mutation }

// LostUpdate returns the first lost update detected, or nil.
func (c *Cluster) LostUpdate() *LostUpdate { return c.lostUpdate }

// equalObjects compares every field of two objects. Labels, Spec and
// Status compare in constant time when they are shared.
func equalObjects(a, b *Object) bool {
	if a.Kind != b.Kind || a.Namespace != b.Namespace || a.Name != b.Name || a.GenerateName != b.GenerateName ||
		a.UID != b.UID || a.ResourceVersion != b.ResourceVersion || a.Generation != b.Generation ||
		a.CreationTimestamp != b.CreationTimestamp || (a.DeletionTimestamp == nil) != (b.DeletionTimestamp == nil) ||
		(a.DeletionTimestamp != nil && *a.DeletionTimestamp != *b.DeletionTimestamp) {
		return false
	}
	return slices.Equal(a.Finalizers, b.Finalizers) && slices.Equal(a.OwnerReferences, b.OwnerReferences) &&
		a.Labels.Equal(b.Labels) && a.Spec.Equal(b.Spec) && a.Status.Equal(b.Status)
}
