package properties_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/properties"
)

func TestZZExt(t *testing.T) {
	for _, c := range classes.All() {
		if c.Name != os.Getenv("ZZ") {
			continue
		}
		p, err := properties.Prepare(c.Scenario, c.Faults)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range properties.PlanOf(p, 1) {
			out, _, err := properties.RunPlanned(p, s)
			if err != nil {
				t.Fatal(err)
			}
			v := "ok"
			if out.Failure != nil {
				v = string(out.Failure.Verdict)
			}
			fmt.Printf("%d %s %s\n", i+1, s, v)
		}
	}
}
