package model

// QuietSince returns when the fault phase ended (StopActors: outside
// actors stopped, quiescence began), and whether it has. Integrations use
// it to stop the clock user code sees there, so that a time-driven
// controller can reach a fixed point (see docs/design.md).
func (c *Cluster) QuietSince() (Time, bool) {
	return c.quietAt, c.actorsStopped
}
