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

// BenchmarkSpecs measures one generated spec (a rapid draw with a fresh
// bitstream, each candidate validated as a create by the API server's
// strategy), as JSON and as the model's Fields, for the richest kind of
// the module (Widget: 30 fields, formats, CEL rules) and two small ones.
func BenchmarkSpecs(b *testing.B) {
	crds := loadAll(b)
	conv := converters(b, crds)["typed"]
	for _, kind := range []string{"Widget", "Batch", "PeriodicJob"} {
		var v *crd.Version
		for _, x := range crds.Versions() {
			if x.GVK.Kind == kind {
				v = x
			}
		}
		specs, err := v.Specs(crd.GenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		fields, err := v.SpecFields(conv, crd.GenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(kind+"/json", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = specs.Example(i)
			}
		})
		b.Run(kind+"/fields", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = fields.Example(i)
			}
		})
	}
}
