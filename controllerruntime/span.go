package controllerruntime

import (
	"fmt"
	"time"

	"github.com/converge-sim/converge/model"
)

// ticksPerPeriod is how many ticks Span gives one period of a schedule:
// enough for a Job's pod to start and finish between two runs at the
// kubelet's default draws (up to 3 ticks to start, 5 to run), few enough
// that a run of several periods stays short.
const ticksPerPeriod = 6

// Span sizes the runs of a time-driven project (a CronJob's schedule, a
// periodic backup) so that a schedule of period every fires runs times in
// the fault phase. By default a tick is a second and the fault horizon 60
// ticks (twice a 30 s resync period), a minute of virtual time: a
// "* * * * *" schedule fires once, and with
// ManagerOptions.StopClockWhenFaultsEnd never again. Span returns the
// tick to give convert.Options.Tick, a sixth of the period (whole seconds
// from six seconds up), and the horizon to give faults.Budget.Horizon:
// runs periods and half of one more, in ticks, so that the last run's Job
// has time to finish. Span(time.Minute, 5) is a tick of 10 s and a
// horizon of 33 ticks. The built-in kubelet's startup and run draws are
// in ticks, so they scale with the tick too.
func Span(every time.Duration, runs int) (tick time.Duration, horizon model.Time, err error) {
	if every <= 0 || runs < 1 {
		return 0, 0, fmt.Errorf("Span needs a positive period and at least one run, got every=%v runs=%d", every, runs)
	}
	tick = every / ticksPerPeriod
	if tick >= time.Second {
		tick = tick.Truncate(time.Second)
	}
	if tick <= 0 {
		return 0, 0, fmt.Errorf("Span: a period of %v is too short to divide into ticks", every)
	}
	span := time.Duration(runs)*every + every/2
	return tick, model.Time((span + tick - 1) / tick), nil
}
