package classes

import (
	"math/rand/v2"

	"github.com/converge-sim/converge/model"
)

// HalfSettle returns a chooser for measures that run a class outside
// rapid: it chooses as rapid's draws mostly do, 0 (let the cluster settle)
// half the time, else any action, from a generator seeded with seed.
func HalfSettle(seed uint64) model.Chooser {
	return halfSettle{rand.New(rand.NewPCG(seed, 7))}
}

type halfSettle struct{ r *rand.Rand }

func (h halfSettle) Choose(n int, _ string) int {
	if h.r.IntN(2) == 0 {
		return 0
	}
	return h.r.IntN(n)
}
