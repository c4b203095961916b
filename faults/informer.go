package faults

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/model"
)

// Faults of the watch stream between the API server and one informer.

// Drop loses the notification of the next watch event delivered to
// Controller's informer for Resource: the cache applies the event, the
// controller is never told. (A watch never skips an event silently; a lost
// stream is Expire.)
type Drop struct {
	Controller string
	Resource   string
}

// Kind returns KindDrop.
func (Drop) Kind() Kind { return KindDrop }

// Target returns the controller whose notification is lost.
func (f Drop) Target() string { return f.Controller }

// Apply arms the drop on the informer.
func (f Drop) Apply(c *model.Cluster) error { return c.Faults().ArmDrop(f.Controller, f.Resource) }

// ApplyDelaysLater arms one of fs, delays all aimed at one informer,
// deciding which only at the next event it would hold back, where choose
// picks its index (model.Faults.ArmDelayLater): until then each would have
// left the cluster the same. name names the set in the cluster's
// fingerprint, and must tell it from any other set.
func ApplyDelaysLater(c *model.Cluster, fs []Delay, name string, choose func(n int) int) error {
	if len(fs) == 0 {
		return fmt.Errorf("faults: no delays to arm")
	}
	for _, f := range fs {
		if f.Controller != fs[0].Controller || f.Resource != fs[0].Resource {
			return fmt.Errorf("faults: delays later: %s and %s aim at different informers", fs[0], f)
		}
	}
	fs = slices.Clone(fs)
	return c.Faults().ArmDelayLater(fs[0].Controller, fs[0].Resource, name, func() model.Time {
		i := chosen(choose, len(fs))
		return fs[i].For
	})
}

func (f Drop) String() string {
	return fmt.Sprintf("drop the next %s notification to %s", f.Resource, f.Controller)
}

// Duplicate delivers the next watch event to the informer twice in a row.
// The second delivery finds the cache already updated, so, as in client-go,
// an add or update arrives again as an update with old == new, and a delete
// arrives as a second delete.
type Duplicate struct {
	Controller string
	Resource   string
}

// Kind returns KindDuplicate.
func (Duplicate) Kind() Kind { return KindDuplicate }

// Target returns the controller that sees the event twice.
func (f Duplicate) Target() string { return f.Controller }

// Apply arms the duplicate.
func (f Duplicate) Apply(c *model.Cluster) error {
	return c.Faults().ArmDuplicate(f.Controller, f.Resource)
}

func (f Duplicate) String() string {
	return fmt.Sprintf("duplicate the next %s event to %s", f.Resource, f.Controller)
}

// Delay holds the next watch event for the informer back for For ticks:
// later events of other objects are delivered before it, later events of
// the same object wait behind it, as a real watch keeps each object's order.
type Delay struct {
	Controller string
	Resource   string
	For        model.Time
}

// Kind returns KindDelay.
func (Delay) Kind() Kind { return KindDelay }

// Target returns the controller whose event is late.
func (f Delay) Target() string { return f.Controller }

// Apply arms the delay.
func (f Delay) Apply(c *model.Cluster) error {
	return c.Faults().ArmDelay(f.Controller, f.Resource, f.For)
}

func (f Delay) String() string {
	return fmt.Sprintf("delay the next %s event to %s by %d ticks", f.Resource, f.Controller, f.For)
}

// Expire ends the informer's watch with Expired (410 Gone). Its undelivered
// events are lost; it relists: intermediate states collapse into the listed
// state, an object deleted and recreated meanwhile arrives as an update with
// a new UID, and one deleted meanwhile arrives as a delete with
// finalStateUnknown carrying the last state the cache had.
type Expire struct {
	Controller string
	Resource   string
}

// Kind returns KindExpire.
func (Expire) Kind() Kind { return KindExpire }

// Target returns the controller whose watch expires.
func (f Expire) Target() string { return f.Controller }

// Apply expires the watch.
func (f Expire) Apply(c *model.Cluster) error { return c.Faults().Expire(f.Controller, f.Resource) }

func (f Expire) String() string {
	return fmt.Sprintf("expire the %s watch of %s", f.Resource, f.Controller)
}

// Stale makes the informer lag for For ticks: an event is delivered only
// after Behind further writes have followed it, so reads from the cache are
// served at least Behind resourceVersions behind the server, deterministically.
type Stale struct {
	Controller string
	Resource   string
	Behind     uint64
	For        model.Time
}

// Kind returns KindStale.
func (Stale) Kind() Kind { return KindStale }

// Target returns the controller whose cache lags.
func (f Stale) Target() string { return f.Controller }

// Apply starts the lag.
func (f Stale) Apply(c *model.Cluster) error {
	return c.Faults().Lag(f.Controller, f.Resource, f.Behind, f.For)
}

func (f Stale) String() string {
	return fmt.Sprintf("stale %s cache of %s: %d resourceVersions behind for %d ticks", f.Resource, f.Controller, f.Behind, f.For)
}

// chosen is the index choose picks among n faults armed as one, the first
// when it picks none of them.
func chosen(choose func(n int) int, n int) int {
	if i := choose(n); i >= 0 && i < n {
		return i
	}
	return 0
}
