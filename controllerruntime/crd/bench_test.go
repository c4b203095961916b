package crd_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
)

// BenchmarkStatusWrite measures one status update of a Batch through a
// client, with the CRDs served (pruning, defaulting, schema and CEL
// validation) and without: the difference is the cost of validation per
// write.
func BenchmarkStatusWrite(b *testing.B) {
	crds, err := crd.Load(bases)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		crds *crd.Set
	}{{"validation=on", crds}, {"validation=off", nil}} {
		b.Run(tc.name, func(b *testing.B) {
			m, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{CRDs: tc.crds})
			if err != nil {
				b.Fatal(err)
			}
			c := m.OutsideClient("user")
			obj := batch("b")
			obj.Spec.Parallelism, obj.Spec.Image = 3, "worker:v1"
			if err := c.Create(ctx, obj); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				obj.Status.ActiveCount = int32(i%2 + 1)
				obj.Status.Active = []string{"b-0", "b-1", "b-2"}[:i%2+1]
				if err := c.Status().Update(ctx, obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
