package faults

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// TimeTravel makes Controller relist from an API server that is Behind
// resourceVersions behind the newest state it had seen, as it can when
// several API servers, or a lagging watch cache, serve one cluster: its
// cache goes back to an exact past state (objects since deleted are there
// again, with their old deletion timestamps and specs), and then catches
// up event by event as the lagging server does (docs/design.md, section
// "Time travel").
//
// Without Restart, the watch of its informer for Resource breaks and that
// informer relists from the past. With Restart, the controller crashes,
// stays down Down ticks and every informer lists from the past when it
// comes back.
type TimeTravel struct {
	Controller string
	Resource   string // the informer whose watch breaks; "" with Restart
	Behind     uint64
	Restart    bool
	Down       model.Time // with Restart
}

// Kind returns KindTimeTravel.
func (TimeTravel) Kind() Kind { return KindTimeTravel }

// Target returns the controller that travels back.
func (f TimeTravel) Target() string { return f.Controller }

// Apply breaks the watch, or crashes the controller, so that it relists
// from the past.
func (f TimeTravel) Apply(c *model.Cluster) error {
	if f.Restart {
		return c.Faults().RestartBehind(f.Controller, f.Behind, f.Down)
	}
	return c.Faults().TimeTravel(f.Controller, f.Resource, f.Behind)
}

func (f TimeTravel) String() string {
	if f.Restart {
		return fmt.Sprintf("timetravel: restart %s (down %d ticks); it relists from a server %d versions behind", f.Controller, f.Down, f.Behind)
	}
	return fmt.Sprintf("timetravel: the %s watch of %s breaks; it relists from a server %d versions behind", f.Resource, f.Controller, f.Behind)
}
