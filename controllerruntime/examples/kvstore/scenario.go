// Package kvstore is an operator in the layout kubebuilder scaffolds
// (api/v1alpha1, internal/controller, config/crd/bases): a KVStore keeps a
// StatefulSet of spec.replicas pods running spec.image, configured by a
// ConfigMap whose hash rolls the pods. Its scenarios write no goal: the
// state transitions drawn from the CRD's schema (crt.Inputs) and the
// history-dependent oracle find its two input bugs, a change lost after a
// scale-down and a removed optional field left in the ConfigMap.
package kvstore

import (
	"path/filepath"
	"runtime"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	storev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/kvstore/api/v1alpha1"
	"github.com/converge-sim/converge/controllerruntime/examples/kvstore/internal/controller"
	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Options says which bugs the reconciler has; the zero value is the fixed
// operator.
type Options struct {
	// StaleOnScaleDown: a change that lowers spec.replicas rolls out
	// nothing else (controller.KVStoreReconciler.StaleOnScaleDown).
	StaleOnScaleDown bool
	// KeepsRemovedLogLevel: removing spec.logLevel leaves it in the
	// ConfigMap (controller.KVStoreReconciler.KeepsRemovedLogLevel).
	KeepsRemovedLogLevel bool
}

// Bases is the directory of the CRD manifests.
func Bases() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "config", "crd", "bases")
}

// World is what every scenario of this package shares, built once: the
// converter, the loaded CRDs and the inputs of the KVStore default/store.
type World struct {
	Conv   *convert.Converter
	CRDs   *crd.Set
	Inputs *properties.Inputs
}

// NewWorld builds the converter of main.go's scheme, loads the CRDs and
// draws the inputs from the KVStore CRD's schema.
func NewWorld() (World, error) {
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return World{}, err
	}
	if err := storev1alpha1.AddToScheme(scheme); err != nil {
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
	in, err := crt.Inputs(crds, conv, New("default", "store"), crt.InputsOptions{})
	if err != nil {
		return World{}, err
	}
	return World{Conv: conv, CRDs: crds, Inputs: in}, nil
}

// New returns the KVStore every scenario starts from: 2 pods of kv:1.0, no
// log level.
func New(namespace, name string) *storev1alpha1.KVStore {
	return &storev1alpha1.KVStore{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       storev1alpha1.KVStoreSpec{Replicas: 2, Image: "kv:1.0"},
	}
}

// Scenario runs the KVStore reconciler, as main.go sets it up, with the
// StatefulSet controller and the kubelet, over the KVStore default/store,
// whose spec the inputs change. No goal is written.
func Scenario(name string, w World, opts Options) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "kubebuilder-style KVStore owning a StatefulSet and a ConfigMap, no goal written; state transitions drawn from its CRD",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{CRDs: w.CRDs})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m ctrl.Manager) error {
				return (&controller.KVStoreReconciler{
					Client:               m.GetClient(),
					Scheme:               m.GetScheme(),
					StaleOnScaleDown:     opts.StaleOnScaleDown,
					KeepsRemovedLogLevel: opts.KeepsRemovedLogLevel,
				}).SetupWithManager(m)
			}, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			if err := mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{}); err != nil {
				return nil, err
			}
			if err := builtin.StatefulSets(mgr, statefulset.Options{}); err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("default", "store"))
		},
		Inputs: w.Inputs,
	}
}
