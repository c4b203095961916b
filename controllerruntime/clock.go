package controllerruntime

import (
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
)

// bubbleEpoch is where a testing/synctest bubble's clock starts. No wall
// clock reads a year this early, so a clock before bubbleEnd is a
// bubble's.
var bubbleEnd = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

// virtualClock makes the time user code reads (time.Now, metav1.Now,
// meta.SetStatusCondition) the model's virtual time, when the run is
// inside a testing/synctest bubble: before each reconcile and each event
// handler call it sleeps the bubble's fake clock forward to the
// converter's Epoch plus the model's ticks. A sleep in a bubble whose
// only goroutine is the run returns at once, so this costs no wall time.
// Outside a bubble (a fuzzrun worker, a test without Check) user code
// reads the wall clock and its timestamps differ between runs.
type virtualClock struct {
	bubble bool
	// stopAtQuiet stops the time user code reads where the fault phase
	// ended (ManagerOptions.StopClockWhenFaultsEnd).
	stopAtQuiet bool
	conv        *convert.Converter
}

func newVirtualClock(conv *convert.Converter, stopAtQuiet bool) *virtualClock {
	return &virtualClock{bubble: time.Now().Before(bubbleEnd), stopAtQuiet: stopAtQuiet, conv: conv}
}

// userNow is the virtual time user code sees in c.
func (vc *virtualClock) userNow(c *model.Cluster) model.Time {
	now := c.Now()
	if vc.stopAtQuiet {
		if q, ok := c.QuietSince(); ok && q < now {
			now = q
		}
	}
	return now
}

// sync moves the bubble's clock to the virtual time user code sees. The
// bubble's clock never goes back; a stopped user clock stays where it
// stopped.
func (vc *virtualClock) sync(c *model.Cluster) {
	if !vc.bubble {
		return
	}
	if d := time.Until(vc.conv.Time(vc.userNow(c)).Time); d > 0 {
		time.Sleep(d)
	}
}
