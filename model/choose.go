package model

// SeedLabel labels a choice that seeds a stream of data a controller
// reads, not a decision of the run: the bytes of crypto/rand that the
// controllerruntime module gives a run's reconcilers. Search draws and
// shrinks it as any choice, so the same seed gives the same bytes;
// bounded exploration takes its first value and does not branch on it,
// since other bytes are no other interleaving.
const SeedLabel = "seed"

// Choose draws an integer in [0, n) from the run's single source of
// choices, for a built-in controller whose outcome the run draws (how long
// a container runs, whether it fails). label names the choice in reports.
// It is called from user code, inside the guard: a panic of the chooser
// (rapid ends a shrunk run whose input ran out this way) reaches the
// caller of the step, as from Outside.Choose, instead of becoming the
// controller's panic.
func (c *Cluster) Choose(n int, label string) int {
	if n <= 1 {
		return 0
	}
	defer func() {
		if r := recover(); r != nil {
			panic(sourcePanic{r})
		}
	}()
	return c.chooser.Choose(n, label)
}
