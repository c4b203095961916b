package scenarios_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/require"
)

// TestOneNumberingOfSources walks every catalog scenario under faults with
// random choices and checks, at every step, what the scheduler's users
// rely on from model.Sources: every enabled action has a source below
// Len; different informers, controllers and actors have different
// sources, disjoint from the collector's, the clock's and the rivals';
// Enabled lists the actions the cluster owes in the order of their
// sources (settling's round-robin takes the first one past its position);
// and Busy says exactly whether one of them is owed.
func TestOneNumberingOfSources(t *testing.T) {
	kinds := map[model.ActionKind]int{}
	for _, sc := range scenarios.All() {
		mix := sc.EveryFault()
		plan, err := properties.PlanFor(sc, mix)
		require.NoError(t, err)
		gen := faults.Schedules(mix, plan.Topology, plan.Budget)
		for seed := range 8 {
			c, err := sc.Build(model.Config{DiscardTrace: true})
			require.NoError(t, err)
			require.NoError(t, c.Start())
			sched := gen.Example(seed)
			if seed == 0 && len(sc.Rivals) > 0 {
				// A persistent rival, so that the walk reaches rival
				// steps whatever schedules the generator draws.
				sched = append(sched, faults.Timed{Fault: faults.Rival{Target: sc.Rivals[0], Value: sc.Rivals[0].Min, Persistent: true}})
			}
			sched.Inject(c)
			src := c.Sources()
			rnd := prng{rand.New(rand.NewPCG(uint64(seed), 17))}
			c.SetChooser(rnd)
			var acts []model.Action
			for step := 0; step < 3000; step++ {
				if step == 1500 {
					deleteAnOwner(t, c)
				}
				acts = c.Enabled(acts[:0])
				if len(acts) == 0 {
					break
				}
				owed, last := false, -1
				seen := map[int]model.Action{}
				for _, a := range acts {
					n := src.Of(a)
					require.True(t, n >= 0 && n < src.Len(), "%s: %+v has source %d of %d", sc.Name, a, n, src.Len())
					if prev, ok := seen[n]; ok && a.Kind != model.ActRival {
						require.Fail(t, "two actions share a source", "%s: %+v and %+v both have source %d", sc.Name, prev, a, n)
					}
					seen[n] = a
					switch a.Kind {
					case model.ActCollect:
						require.Equal(t, src.Collector(), n)
					case model.ActTimer:
						require.Equal(t, src.Clock(), n)
					case model.ActRival:
						require.Equal(t, src.Rivals(), n)
					}
					if a.Kind.Owed() {
						owed = true
						if a.Kind == model.ActRival {
							require.GreaterOrEqual(t, n, last, "%s: Enabled lists owed actions out of source order: %v", sc.Name, acts)
						} else {
							require.Greater(t, n, last, "%s: Enabled lists owed actions out of source order: %v", sc.Name, acts)
						}
						last = n
					}
				}
				require.Equal(t, owed, c.Busy(), "%s: Busy disagrees with Enabled %v", sc.Name, acts)
				a := acts[rnd.Choose(len(acts), "step")]
				kinds[a.Kind]++
				c.Do(a)
			}
		}
	}
	for k := model.ActDeliver; k <= model.ActTimer; k++ {
		require.Positive(t, kinds[k], "no step of kind %d: the walk does not reach every kind of action", k)
	}
}

// deleteAnOwner deletes the owner of the first object that has one, so that
// the walk reaches garbage collection.
func deleteAnOwner(t *testing.T, c *model.Cluster) {
	st := c.State()
	for _, kind := range st.Kinds() {
		for i := range st.Len(kind) {
			o := st.Nth(kind, i)
			if ref, ok := o.ControllerRef(); ok {
				owner := model.Ref{Kind: ref.Kind, Namespace: o.Namespace, Name: ref.Name}
				_ = c.Outside("test").Delete(owner, model.DeleteOptions{})
				return
			}
		}
	}
}
