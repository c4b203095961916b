package model

// Choose draws an integer in [0, n) from the run's single source of
// choices, for a built-in controller whose outcome the run draws (how long
// a container runs, whether it fails). label names the choice in reports.
func (c *Cluster) Choose(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return c.chooser.Choose(n, label)
}
