package model

// QuietSince returns when the fault phase ended (StopActors: outside
// actors stopped, quiescence began), and whether it has; after
// StopActorsUntilQuiet, the time given there, which may be ahead. Integrations use
// it to stop the clock user code sees there, so that a time-driven
// controller can reach a fixed point (see docs/design.md).
func (c *Cluster) QuietSince() (Time, bool) {
	return c.quietAt, c.actorsStopped
}

// StopActorsUntilQuiet stops every actor now, as StopActors does, but
// dates the end of the fault phase at: QuietSince reports at from now on,
// so the clock user code reads (see QuietSince) runs until at and stops
// there, as it did in another run whose fault phase ended at at. The
// differential oracle's reference run uses it to see the clock its history
// run saw (docs/design.md, "The reference run sees the same world"). An
// at before the current time is the current time.
func (c *Cluster) StopActorsUntilQuiet(at Time) {
	if !c.actorsStopped {
		c.quietAt = max(at, c.clock.Now())
	}
	c.actorsStopped = true
}
