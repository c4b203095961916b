package faults

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/model"
)

// canonicalTravel is the far time travel of the canonical space.
const canonicalTravel = 12

// Canonical returns the finite fault space bounded exploration searches
// (docs/design.md, "Bounded exhaustive exploration"): every fault of the
// mix's kinds aimed at every target topo declares, each with a small
// canonical set of parameters, in a fixed order without duplicates.
//
// The parameters are the extremes of what Schedules draws: durations
// (delay, stale, partition, restart's down time) 1 and b.MaxDown; stale
// 1 and 5 resourceVersions behind; restart crashing after 0, 1 or 2
// writes (every value drawn, since the crash window is the point);
// apierror every error kind, failing 1 or 3 writes (3 even when the
// budget's MaxFailures, drawn from the run, is larger: the space is kept
// as it was, unless MaxFailures is smaller); timetravel 1 and 12
// resourceVersions behind (not Schedules' 1000, nor its landmarks: the
// exploration's space predates them and is kept as it was), down 1 and
// b.MaxDown; edit and rival the
// first two objects (pick 0 and 1), integer fields at Min and Max,
// enumerated fields at every value, rivals once and persistent. An
// impossible mix (Check) or a kind it has no faults for is an error.
func Canonical(mix Mix, topo Topology, b Budget) ([]Fault, error) {
	if err := Check(mix, topo, b); err != nil {
		return nil, err
	}
	durations := dedup([]model.Time{1, b.MaxDown})
	var out []Fault
	seen := map[string]bool{}
	add := func(f Fault) {
		if key := fmt.Sprintf("%T %+v", f, f); !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	informers := func(each func(controller, kind string)) {
		for _, t := range topo.Targets {
			for _, k := range t.Kinds {
				each(t.Controller, k)
			}
		}
	}
	for _, kind := range mix {
		switch kind {
		case KindDrop:
			informers(func(c, k string) { add(Drop{Controller: c, Resource: k}) })
		case KindDuplicate:
			informers(func(c, k string) { add(Duplicate{Controller: c, Resource: k}) })
		case KindExpire:
			informers(func(c, k string) { add(Expire{Controller: c, Resource: k}) })
		case KindDelay:
			informers(func(c, k string) {
				for _, d := range durations {
					add(Delay{Controller: c, Resource: k, For: d})
				}
			})
		case KindStale:
			informers(func(c, k string) {
				for _, behind := range []uint64{1, maxBehind} {
					for _, d := range durations {
						add(Stale{Controller: c, Resource: k, Behind: behind, For: d})
					}
				}
			})
		case KindRestart:
			for _, t := range topo.Targets {
				for _, d := range durations {
					for after := 0; after <= maxAfterWrites; after++ {
						add(Restart{Controller: t.Controller, Down: d, AfterWrites: after})
					}
				}
			}
		case KindTimeTravel:
			for _, t := range topo.Targets {
				for _, behind := range []uint64{1, canonicalTravel} {
					for _, d := range durations {
						add(TimeTravel{Controller: t.Controller, Behind: behind, Down: d})
					}
				}
			}
		case KindPartition:
			for _, t := range topo.Targets {
				for _, d := range durations {
					add(Partition{Controller: t.Controller, For: d})
				}
			}
		case KindAPIError:
			for _, t := range topo.Targets {
				for _, e := range ErrorKinds() {
					for _, n := range slices.Compact([]int{1, min(maxFailures, b.failures())}) {
						add(APIError{Controller: t.Controller, Error: e, Count: n})
					}
				}
			}
		case KindEdit:
			for _, target := range topo.Edits {
				for pick := 0; pick <= 1; pick++ {
					for _, v := range canonicalValues(target) {
						add(Edit{Target: target, Pick: pick, Value: v.value, Choice: v.choice})
					}
				}
			}
		case KindRival:
			for _, target := range topo.Rivals {
				for pick := 0; pick <= 1; pick++ {
					for _, v := range canonicalValues(target) {
						for _, persistent := range []bool{false, true} {
							add(Rival{Target: target, Pick: pick, Value: v.value, Choice: v.choice, Persistent: persistent})
						}
					}
				}
			}
		default:
			return nil, fmt.Errorf("faults: no canonical faults of kind %q", kind)
		}
	}
	return out, nil
}

// canonicalValue is what an edit or rival sets: an integer, or the index
// of one of the target's values.
type canonicalValue struct {
	value  int64
	choice int
}

// canonicalValues are the values an edit or rival of target sets in the
// canonical fault space: none for a target without a path, every listed
// value, else Min and Max.
func canonicalValues(target EditTarget) []canonicalValue {
	switch {
	case target.Path == "":
		return []canonicalValue{{}}
	case len(target.Values) > 0:
		out := make([]canonicalValue, len(target.Values))
		for i := range out {
			out[i].choice = i
		}
		return out
	case target.Min == target.Max:
		return []canonicalValue{{value: target.Min}}
	}
	return []canonicalValue{{value: target.Min}, {value: target.Max}}
}

func dedup(ts []model.Time) []model.Time {
	var out []model.Time
	for _, t := range ts {
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out
}
