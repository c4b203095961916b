// Command inputcampaign is what a team with its own controller-runtime
// operators writes to run input campaigns of them with the fuzzrun command
// line: declare scenarios whose inputs come from the CRDs (crt.Inputs),
// with their expected verdicts, and hand them to fuzzrun.Main. Rows,
// findings with their transitions, and replay work as for fault
// campaigns.
//
//	go run ./examples/inputcampaign -runs 50 -out findings
//	go run ./examples/inputcampaign -replay findings/finding-kvstore-stale-loglevel-….json
//
// The operators (examples/kvstore, examples/gateway) read no clock, so
// their runs replay byte for byte outside a testing/synctest bubble too.
package main

import (
	"fmt"
	"os"

	"github.com/converge-sim/converge/controllerruntime/examples/gateway"
	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
)

// program replays this command's findings.
const program = "go run ./examples/inputcampaign"

func main() {
	scs, err := Scenarios()
	if err != nil {
		fmt.Fprintf(os.Stderr, "inputcampaign: %v\n", err)
		os.Exit(fuzzrun.ExitUsage)
	}
	fuzzrun.Main(scs...)
}

// Scenarios are the broken operators, each expected to fail as its bug
// does, and the fixed twins, expected to pass with no fault and under
// controller restarts.
func Scenarios() ([]properties.Scenario, error) {
	kw, err := kvstore.NewWorld()
	if err != nil {
		return nil, err
	}
	gw, err := gateway.NewWorld()
	if err != nil {
		return nil, err
	}
	passes := []properties.Expectation{{}, {Faults: faults.Mix{faults.KindRestart}}}
	return []properties.Scenario{
		with(kvstore.Scenario("kvstore-stale-scaledown", kw, kvstore.Options{StaleOnScaleDown: true}), properties.Expectation{Fails: properties.HistoryDependent}),
		with(kvstore.Scenario("kvstore-stale-loglevel", kw, kvstore.Options{KeepsRemovedLogLevel: true}), properties.Expectation{Fails: properties.HistoryDependent}),
		with(kvstore.Scenario("kvstore-fixed", kw, kvstore.Options{}), passes...),
		with(gateway.Scenario("gateway-nil-secret", gw, gateway.Options{DerefsSecretName: true}), properties.Expectation{Fails: properties.ControllerPanic}),
		with(gateway.Scenario("gateway-fixed", gw, gateway.Options{}), passes...),
	}, nil
}

func with(sc properties.Scenario, expect ...properties.Expectation) properties.Scenario {
	sc.Program = program
	sc.Expect = expect
	return sc
}
