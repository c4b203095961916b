package controllerruntime

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

// Check runs properties.Converges under rapid in a Go test, every run
// inside its own testing/synctest bubble (rapid.SyncTest), so that the
// time user code reads is the model's virtual time and a run replays byte
// for byte, timestamps included. rapid shrinks and reports as with
// properties.Check; the line it prints replays the failure:
//
//	go test -run '^TestName$' -rapid.seed=N
func Check(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	prop := properties.Converges(sc, mix)
	rapid.Check(t, func(rt *rapid.T) { rapid.SyncTest(rt, prop) })
}
