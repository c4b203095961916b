package faults

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// TimeTravel restarts Controller, down for Down ticks, and makes it list
// from an API server that is Behind resourceVersions behind the newest
// state it had seen, as a restarted client-go informer can: its first list
// may be served from a watch cache of an API server that lags the one it
// read before. Its caches go back to an exact past state (objects since
// deleted are there again, with their old deletion timestamps and specs),
// then catch up event by event as the lagging server does (docs/design.md,
// section "Time travel").
type TimeTravel struct {
	Controller string
	Behind     uint64
	Down       model.Time
}

// Kind returns KindTimeTravel.
func (TimeTravel) Kind() Kind { return KindTimeTravel }

// Target returns the controller that travels back.
func (f TimeTravel) Target() string { return f.Controller }

// Apply crashes the controller; it relists from the past when it is back.
func (f TimeTravel) Apply(c *model.Cluster) error {
	return c.Faults().TimeTravel(f.Controller, f.Behind, f.Down)
}

func (f TimeTravel) String() string {
	unit := "versions"
	if f.Behind == 1 {
		unit = "version"
	}
	return fmt.Sprintf("timetravel: restart %s (down %d ticks); it relists from a server %d %s behind", f.Controller, f.Down, f.Behind, unit)
}
