package controllerruntime

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// Check runs properties.CheckWith in a Go test with every run inside its
// own testing/synctest bubble (properties.InBubble), so that the time user
// code reads is the model's virtual time and a run replays byte for byte,
// timestamps included. A failure ends with the line that replays it:
//
//	go test ./<package> -run '^TestName$' -rapid.seed=N
func Check(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	properties.CheckWith(t, sc, mix, properties.CheckOptions{Wrap: properties.InBubble(t)})
}
