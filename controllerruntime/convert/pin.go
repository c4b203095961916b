package convert

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// pinned memoizes the converters Pin derives from one converter, by the
// kinds they pin, so that every run of a project shares one derived
// converter (and its encoding plans).
type pinned struct {
	mu sync.Mutex
	by map[string]*Converter
}

// Pin returns a converter in which the Kind of each typed object stands
// for the object's own group and version, as Options.Prefer would pin it,
// where the scheme has that Kind in several groups and no group was
// chosen: a controller that watches &CronJob{} of its own API group names
// the group by its Go type, though the scheme also holds batch/v1's. An
// object whose Kind is not ambiguous pins nothing; if no object pins
// anything, Pin returns c itself. The model holds one group per Kind:
// objects of one call that name a Kind in two groups are an error naming
// both, and once a Kind is pinned, an object of its other group is
// refused by Kind as with Options.Prefer. c is unchanged; the derived
// converter is memoized, so pinning the same kinds again returns the same
// one.
func (c *Converter) Pin(objs ...runtime.Object) (*Converter, error) {
	var pins []schema.GroupVersionKind
	for _, obj := range objs {
		if _, ok := obj.(runtime.Unstructured); ok {
			continue // names its group by data, not by type: Options.Prefer pins it
		}
		gvk, err := apiutil.GVKForObject(obj, c.scheme)
		if err != nil {
			return nil, err
		}
		if _, isList := obj.(client.ObjectList); isList {
			gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
		}
		if _, ambiguous := c.ambiguous[gvk.Kind]; !ambiguous {
			continue
		}
		if i := slices.IndexFunc(pins, func(p schema.GroupVersionKind) bool { return p.Kind == gvk.Kind }); i >= 0 {
			if pins[i] != gvk {
				return nil, fmt.Errorf("kind %s is used as both %s and %s: the model holds one group per kind; pin one with Options.Prefer", gvk.Kind, pins[i].GroupVersion(), gvk.GroupVersion())
			}
			continue
		}
		pins = append(pins, gvk)
	}
	if len(pins) == 0 {
		return c, nil
	}
	slices.SortFunc(pins, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.Kind, b.Kind) })
	key := fmt.Sprint(pins)
	c.derived.mu.Lock()
	defer c.derived.mu.Unlock()
	if d, ok := c.derived.by[key]; ok {
		return d, nil
	}
	d := &Converter{
		scheme:    c.scheme,
		epoch:     c.epoch,
		tick:      c.tick,
		kinds:     maps.Clone(c.kinds),
		ambiguous: maps.Clone(c.ambiguous),
		hoist:     c.hoist,
		status:    c.status,
	}
	for _, gvk := range pins {
		d.kinds[gvk.Kind] = gvk
		delete(d.ambiguous, gvk.Kind)
	}
	d.gvks = make([]schema.GroupVersionKind, 0, len(d.kinds))
	for _, gvk := range d.kinds {
		d.gvks = append(d.gvks, gvk)
	}
	slices.SortFunc(d.gvks, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.Kind, b.Kind) })
	if c.derived.by == nil {
		c.derived.by = map[string]*Converter{}
	}
	c.derived.by[key] = d
	return d, nil
}
