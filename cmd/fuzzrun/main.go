// Command fuzzrun runs converge's built-in scenarios as a fuzz campaign and
// replays any failing seed. `fuzzrun -list` shows the scenarios and what
// each must show; `fuzzrun -h` shows the flags.
package main

import (
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/scenarios"
)

func main() {
	fuzzrun.Main(scenarios.All()...)
}
