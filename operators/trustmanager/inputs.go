package trustmanager

import (
	trustapi "github.com/cert-manager/trust-manager/pkg/apis/trust/v1alpha1"
	trustmanagerapi "github.com/cert-manager/trust-manager/pkg/apis/trustmanager/v1alpha2"
	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// InputsScenario is the world of Scenario as a new user of the goal-free
// history-dependent oracle sets it up (issue 35): the Bundle controller
// over the Bundles "roots" and "internal", with no goal and no user: the
// state transitions of in (crt.Inputs of the Bundle "roots") are the
// only writer of its spec.
func InputsScenario(name string, w World, in *properties.Inputs) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "trust-manager's Bundle migration controller, no goal, spec transitions of a Bundle drawn from its CRD",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{
				CRDs:          w.CRDs,
				ClusterScoped: []client.Object{&trustapi.Bundle{}, &trustmanagerapi.ClusterBundle{}},
			})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(Setup, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("roots", "roots-ca"), New("internal", "internal-ca"))
		},
		Inputs: in,
	}
}
