package model

// Notification is one informer notification to a level-triggered
// controller, in the shape controller-runtime's event handlers and
// predicates see it: an add (Type Added), an update (Modified; a resync
// is an update with Old == Object), or a delete (Deleted; FinalStateUnknown
// when the informer learned of it only by relisting). Its objects are
// private copies.
type Notification struct {
	// Kind is the kind of the informer that notifies.
	Kind string
	Type EventType
	// Object is the new state, or for a delete the last known state.
	Object *Object
	// Old is the previous state of an update; nil otherwise.
	Old               *Object
	FinalStateUnknown bool
}

// notify hands n to the controller's Notify function, if it has one, and
// enqueues the keys it returns. It reports whether Notify handled n; if
// not, the controller's For, Owns and Watches mapping applies.
func (ctl *controller) notify(n Notification) bool {
	if ctl.spec.Notify == nil {
		return false
	}
	resync := n.Old == n.Object
	n.Object = n.Object.DeepCopy()
	switch {
	case resync:
		n.Old = n.Object
	case n.Old != nil:
		n.Old = n.Old.DeepCopy()
	}
	keys := 0
	ctl.c.guard(ctl.spec.Name, func() {
		for _, r := range ctl.spec.Notify(n) {
			ctl.queue.Add(r.Key())
			ctl.track.added(r.Key())
			ctl.mappedTo(n.Object, r.Key())
			keys++
		}
	})
	if keys == 0 {
		ctl.filtered(n.Type, n.Object)
	}
	return true
}
