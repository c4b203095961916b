package trustmanager_test

import (
	"fmt"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/operators/trustmanager"
)

// TestInputsDrawBundlesFromTheCRD: crt.Inputs draws Bundles from
// trust-manager's own CRD, whose minimal spec breaks its CEL rules ("exactly
// one of the fields in [configMap secret inLine useDefaultCAs]"), and each
// drawn spec is admitted by an API server that validates with that CRD
// (issue 35).
func TestInputsDrawBundlesFromTheCRD(t *testing.T) {
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	stats := &crd.GenStats{}
	in, err := crt.Inputs(w.CRDs, w.Conv, trustmanager.New("roots", "roots-ca"), crt.InputsOptions{Gen: crd.GenOptions{Stats: stats}})
	if err != nil {
		t.Fatal(err)
	}
	c := model.NewCluster(model.Config{})
	c.Server().AddAdmission(w.CRDs.Admission(w.Conv, crd.Options{}))
	for seed := range 50 {
		spec := in.Spec.Example(seed)
		if err := c.Server().Create("user", &model.Object{Kind: "Bundle", Name: fmt.Sprintf("b%d", seed), Spec: spec}); err != nil {
			t.Fatalf("seed %d: drawn spec rejected: %v\n%v", seed, err, spec)
		}
	}
	t.Logf("%d specs, %d candidates, %d rejected, %d fallbacks", stats.Specs, stats.Candidates, stats.Rejected, stats.Fallbacks)
}
