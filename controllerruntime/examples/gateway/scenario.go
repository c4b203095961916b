// Package gateway is an operator in the layout kubebuilder scaffolds
// (api/v1alpha1, internal/controller, config/crd/bases): a Gateway keeps a
// Deployment of spec.replicas proxy pods, run by the built-in Deployment,
// ReplicaSet and kubelet controllers, and the proxy's ConfigMap, with TLS
// when spec.tls is set. Its scenarios write no goal: the state
// transitions drawn from the CRD's schema (crt.Inputs) find the input the
// broken reconciler mishandles, TLS without a secret name, as a panic.
package gateway

import (
	"path/filepath"
	"runtime"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	netv1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/gateway/api/v1alpha1"
	"github.com/converge-sim/converge/controllerruntime/examples/gateway/internal/controller"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Options says which bug the reconciler has; the zero value is the fixed
// operator.
type Options struct {
	// DerefsSecretName: TLS without a secret name panics the reconciler
	// (controller.GatewayReconciler.DerefsSecretName).
	DerefsSecretName bool
}

// Bases is the directory of the CRD manifests.
func Bases() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "config", "crd", "bases")
}

// World is what every scenario of this package shares, built once: the
// converter, the loaded CRDs and the inputs of the Gateway default/edge.
type World struct {
	Conv   *convert.Converter
	CRDs   *crd.Set
	Inputs *properties.Inputs
}

// NewWorld builds the converter of main.go's scheme, loads the CRDs and
// draws the inputs from the Gateway CRD's schema.
func NewWorld() (World, error) {
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return World{}, err
	}
	if err := netv1alpha1.AddToScheme(scheme); err != nil {
		return World{}, err
	}
	conv, err := convert.New(scheme, convert.Options{})
	if err != nil {
		return World{}, err
	}
	crds, err := crd.Load(Bases())
	if err != nil {
		return World{}, err
	}
	in, err := crt.Inputs(crds, conv, New("default", "edge"), crt.InputsOptions{})
	if err != nil {
		return World{}, err
	}
	return World{Conv: conv, CRDs: crds, Inputs: in}, nil
}

// New returns the Gateway every scenario starts from: 2 proxy pods, no
// TLS.
func New(namespace, name string) *netv1alpha1.Gateway {
	return &netv1alpha1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       netv1alpha1.GatewaySpec{Replicas: 2},
	}
}

// Scenario runs the Gateway reconciler, as main.go sets it up, with the
// built-in Deployment, ReplicaSet and kubelet controllers, over the
// Gateway default/edge, whose spec the inputs change. No goal is written.
func Scenario(name string, w World, opts Options) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "kubebuilder-style Gateway owning a Deployment and a ConfigMap, no goal written; state transitions drawn from its CRD",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{CRDs: w.CRDs})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m ctrl.Manager) error {
				return (&controller.GatewayReconciler{
					Client:           m.GetClient(),
					Scheme:           m.GetScheme(),
					DerefsSecretName: opts.DerefsSecretName,
				}).SetupWithManager(m)
			}, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			for _, setup := range []crt.SetupFunc{builtin.Deployments(mgr), builtin.ReplicaSets(), builtin.Kubelet(mgr, builtin.KubeletOptions{})} {
				if err := mgr.Setup(setup, crt.SetupOptions{}); err != nil {
					return nil, err
				}
			}
			return c, mgr.Apply(New("default", "edge"))
		},
		Inputs: w.Inputs,
	}
}
