package kuberay

import (
	"context"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// InputsScenario is the world of Scenario as a new user of the goal-free
// history-dependent oracle sets it up (issue 35): the RayCluster
// controller, as main.go sets it up, with the built-in kubelet, over the
// RayCluster default/ray of New, with no goal and no user: the state
// transitions of in (crt.Inputs of that RayCluster) are the only writer
// of its spec.
func InputsScenario(name string, w World, in *properties.Inputs) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "KubeRay's RayCluster controller with the built-in kubelet, no goal, spec transitions drawn from its CRD",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{CRDs: w.CRDs})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m ctrl.Manager) error {
				return ray.NewReconciler(context.Background(), m, ray.RayClusterReconcilerOptions{}).SetupWithManager(m, 1)
			}, crt.SetupOptions{Reads: []client.Object{&corev1.ServiceAccount{}}})
			if err != nil {
				return nil, err
			}
			if err := mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{}); err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("default", "ray", 2))
		},
		Inputs: in,
	}
}
