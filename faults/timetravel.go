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
//
// Either Behind or Landmark is set. Behind is a distance, clamped at run
// time to the history the server still holds. Landmark n is the n-th
// version back at which an object the controller watches became deleting,
// was deleted or was recreated (model.Faults.TimeTravelToLandmark): where
// a stale read misleads, however many versions back that is.
type TimeTravel struct {
	Controller string
	Behind     uint64
	Landmark   int
	Down       model.Time
}

// Kind returns KindTimeTravel.
func (TimeTravel) Kind() Kind { return KindTimeTravel }

// Target returns the controller that travels back.
func (f TimeTravel) Target() string { return f.Controller }

// Apply crashes the controller; it relists from the past when it is back.
func (f TimeTravel) Apply(c *model.Cluster) error {
	if f.Landmark > 0 {
		return c.Faults().TimeTravelToLandmark(f.Controller, f.Landmark, f.Down)
	}
	return c.Faults().TimeTravel(f.Controller, f.Behind, f.Down)
}

func (f TimeTravel) String() string {
	if f.Landmark > 0 {
		return fmt.Sprintf("timetravel: restart %s (down %d ticks); it relists from a server at landmark %d (the %s version back where a watched object was deleting, deleted or recreated)", f.Controller, f.Down, f.Landmark, ordinal(f.Landmark))
	}
	unit := "versions"
	if f.Behind == 1 {
		unit = "version"
	}
	return fmt.Sprintf("timetravel: restart %s (down %d ticks); it relists from a server %d %s behind", f.Controller, f.Down, f.Behind, unit)
}

// ordinal renders 1 as "1st", 2 as "2nd", 11 as "11th".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
