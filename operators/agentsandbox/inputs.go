package agentsandbox

import (
	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	ctrl "sigs.k8s.io/controller-runtime"
)

// InputsScenario is the world of Scenario as a new user of the goal-free
// history-dependent oracle sets it up (issue 35, docs/design.md,
// "State-transition inputs"): the Sandbox controller, as main.go sets it
// up, with the built-in kubelet, over the Sandbox default/coder of New
// (with a Service), with no goal and no user: the state transitions of in
// (crt.Inputs of that Sandbox) are the only writer of its spec.
func InputsScenario(name string, w World, in *properties.Inputs) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "agent-sandbox's Sandbox controller with the built-in kubelet, no goal, spec transitions drawn from its CRD",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{CRDs: w.CRDs})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m ctrl.Manager) error { return reconciler(m).SetupWithManager(m, 1) }, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			if err := mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{}); err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("default", "coder", true))
		},
		Inputs: in,
	}
}
