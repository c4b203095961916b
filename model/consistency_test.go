package model_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// TestCachesConvergeToTheServer is the model's own consistency check:
// whatever the interleaving of writes, deliveries, resyncs and informer
// faults (drop, duplicate, delay, expire, stale, partition, restart), once
// everything heals and every pending event is delivered, each informer's
// cache holds exactly the server's objects at the server's versions. A
// fault that corrupts a cache instead of only delaying or hiding
// notifications fails here.
func TestCachesConvergeToTheServer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := model.NewCluster(model.Config{HistoryWindow: rapid.IntRange(2, 20).Draw(t, "window")})
		for _, name := range []string{"a", "b"} {
			err := c.AddController(model.Controller{
				Name: name, For: "Pod", Owns: []string{"Pod"}, ResyncPeriod: 7,
				NewHandler: func(model.Client) model.Handler { return model.HandlerFuncs{} },
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		out := c.Outside("writer")
		names := []string{"p0", "p1", "p2"}
		ctl := rapid.SampledFrom([]string{"a", "b"})
		// Each run uses two fault kinds, often: bugs in the model live in
		// how two faults combine.
		kinds := rapid.SliceOfNDistinct(rapid.IntRange(0, 6), 2, 2, rapid.ID[int]).Draw(t, "kinds")
		for range rapid.IntRange(0, 80).Draw(t, "steps") {
			switch rapid.IntRange(0, 5).Draw(t, "what") {
			case 0, 1:
				name := rapid.SampledFrom(names).Draw(t, "name")
				if o, err := out.Get("Pod", "default", name); err == nil {
					if rapid.Bool().Draw(t, "delete") {
						_ = out.Delete(o.Ref(), model.DeleteOptions{})
					} else {
						o.Spec = model.NewFields(model.Values{"n": int64(rapid.IntRange(0, 3).Draw(t, "n"))})
						_ = out.Update(o)
					}
				} else {
					_ = out.Create(&model.Object{Kind: "Pod", Namespace: "default", Name: name})
				}
			case 2:
				var err error
				name := ctl.Draw(t, "controller")
				switch rapid.SampledFrom(kinds).Draw(t, "fault") {
				case 0:
					err = c.Faults().ArmDrop(name, "Pod")
				case 1:
					err = c.Faults().ArmDuplicate(name, "Pod")
				case 2:
					err = c.Faults().ArmDelay(name, "Pod", model.Time(rapid.IntRange(1, 5).Draw(t, "for")))
				case 3:
					err = c.Faults().Expire(name, "Pod")
				case 4:
					err = c.Faults().Lag(name, "Pod", uint64(rapid.IntRange(1, 3).Draw(t, "behind")), 4)
				case 5:
					err = c.Faults().Partition(name, model.Time(rapid.IntRange(1, 5).Draw(t, "for")))
				case 6:
					err = c.Faults().Crash(name, model.Time(rapid.IntRange(1, 5).Draw(t, "down")))
				}
				if err != nil {
					t.Fatal(err)
				}
			default:
				acts := c.Enabled(nil)
				if len(acts) > 0 {
					c.Do(acts[rapid.IntRange(0, len(acts)-1).Draw(t, "action")])
				}
			}
		}
		c.Faults().Heal()
		for c.Busy() {
			c.Do(c.Enabled(nil)[0])
		}
		want := map[string]uint64{}
		for _, o := range c.State().List("Pod", model.ListOptions{}) {
			want[o.Key()] = o.ResourceVersion
		}
		for _, inf := range c.Informers() {
			got := map[string]uint64{}
			inf.Each(func(o *model.Object) { got[o.Key()] = o.ResourceVersion })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("informer %s cache %v, server %v", inf.Name(), got, want)
			}
		}
	})
}
