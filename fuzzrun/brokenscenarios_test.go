package fuzzrun_test

import "github.com/converge-sim/converge/properties"

// testScenarios are the broken scenarios of these tests, which the test
// binary serves besides the built-in ones, as a worker or as fuzzrun.
func testScenarios() []properties.Scenario {
	return []properties.Scenario{hanging(), crashing()}
}
