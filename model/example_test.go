package model_test

import (
	"fmt"
	"os"

	"github.com/converge-sim/converge/model"
)

// A cluster with one level-triggered controller, driven by hand: declare the
// controller and the objects, start, then let Enabled list what may happen
// next and Do make it happen until nothing is left. properties.Execute runs
// the same loop with a chooser that picks among the enabled actions, a fault
// schedule and the checks of a run.
func Example() {
	c := model.NewCluster(model.Config{})
	err := c.AddController(model.Controller{
		Name: "config-maker",
		For:  "App",
		Owns: []string{"ConfigMap"},
		NewReconciler: func(cl model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				app, err := cl.Get("App", req.Namespace, req.Name)
				if model.IsNotFound(err) {
					return model.Result{}, nil
				}
				if err != nil {
					return model.Result{}, err
				}
				if _, err := cl.Get("ConfigMap", req.Namespace, req.Name); !model.IsNotFound(err) {
					return model.Result{}, err
				}
				return model.Result{}, cl.Create(&model.Object{
					Kind: "ConfigMap", Namespace: req.Namespace, Name: req.Name,
					OwnerReferences: []model.OwnerReference{model.NewOwnerReference(app)},
				})
			})
		},
		Goal: func(s model.State) []model.Unmet {
			var unmet []model.Unmet
			for _, app := range s.List("App", model.ListOptions{}) {
				if s.Get("ConfigMap", app.Namespace, app.Name) == nil {
					unmet = append(unmet, model.Unmet{Object: app.Ref(), Message: "has no ConfigMap"})
				}
			}
			return unmet
		},
	})
	if err != nil {
		panic(err)
	}
	if err := c.Apply(&model.Object{Kind: "App", Namespace: "default", Name: "web"}); err != nil {
		panic(err)
	}
	if err := c.Start(); err != nil {
		panic(err)
	}
	for range 100 {
		acts := c.Enabled(nil)
		if len(acts) == 0 {
			break
		}
		c.Do(acts[0])
	}
	if err := c.Trace().WriteText(os.Stdout); err != nil {
		panic(err)
	}
	fmt.Println("unmet goals:", len(c.Goals()))
	// Output:
	// #1 t=0 setup apply => create App default/web@1
	// #2 t=0 cluster start [App listed 1] [ConfigMap listed 0]
	// #3 t=0 config-maker reconcile App default/web => create ConfigMap default/web@2
	// #4 t=0 config-maker watch Added ConfigMap default/web@2
	// #5 t=0 config-maker reconcile App default/web
	// unmet goals: 0
}
