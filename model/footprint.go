package model

// Commute reports whether two actions, both enabled now, commute: doing
// either leaves the other enabled, and both orders reach the same state
// (Fingerprint) through the same API server states. Bounded exploration
// uses it for sleep sets (docs/design.md, "Bounded exhaustive
// exploration"). It is conservative: true only for a local delivery and
//
//   - a local delivery to another controller's informer, or
//   - a write from outside the controllers: an actor, a rival, the garbage
//     collector.
//
// A delivery is local when it touches only its informer's cache and its
// controller's queue: the controller is level-triggered, maps events with
// For and Owns alone (no Watches mapping or Notify, which are user code
// that may read the server), and its informer has no delay armed (a
// delay sets a timer, and timers at one time fire in the order set). A
// write appends its event behind the ones in flight, so the delivery
// takes the same event either way. Everything else is taken to conflict.
func (c *Cluster) Commute(a, b Action) bool {
	if a.Kind != ActDeliver {
		a, b = b, a
	}
	if a.Kind != ActDeliver || !c.localDelivery(a.Index) {
		return false
	}
	switch b.Kind {
	case ActDeliver:
		return c.localDelivery(b.Index) && c.informers[a.Index].ctrl != c.informers[b.Index].ctrl
	case ActActor, ActRival, ActCollect:
		return true
	}
	return false
}

// localDelivery reports whether a delivery by informer i touches only its
// cache and its controller's queue (see Commute).
func (c *Cluster) localDelivery(i int) bool {
	if i < 0 || i >= len(c.informers) {
		return false
	}
	inf := c.informers[i]
	spec := inf.ctrl.spec
	return inf.ctrl.handler == nil && spec.Notify == nil && len(spec.Watches) == 0 && len(inf.delays) == 0
}
