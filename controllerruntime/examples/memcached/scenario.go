// Package memcached is an operator in the layout operator-sdk scaffolds
// (api/v1alpha1, internal/controller, config/crd/bases): a Memcached
// keeps a Deployment of spec.size pods and holds a finalizer until its
// cleanup ran. Its SetupWithManager runs unmodified in the model, with the
// built-in Deployment and ReplicaSet controllers and kubelet, under every
// fault.
package memcached

//lint:file-ignore SA1019 GetEventRecorderFor, as the operator-sdk scaffold's cmd/main.go calls it; the manager still serves the old events API

import (
	"context"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	cachev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/memcached/api/v1alpha1"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached/internal/controller"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Options says which world a scenario builds.
type Options struct {
	// ForgetOwns turns on the reconciler's bug.
	ForgetOwns bool
	// SyncPeriod is every informer's resync period; zero is none, close
	// to controller-runtime's default of ten hours.
	SyncPeriod time.Duration
}

// Converter converts the client-go types and this API's, as main.go's
// scheme has them.
func Converter() (*convert.Converter, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := cachev1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return convert.New(scheme, convert.Options{})
}

// Scenario runs the Memcached controller with the built-in Deployment,
// ReplicaSet and kubelet controllers over one Memcached "cache" of size 2,
// with a user who resizes it; outside edits may delete the Deployment or
// the Memcached, or resize it.
func Scenario(name string, conv *convert.Converter, opts Options) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "operator-sdk-style Memcached with its Deployment and finalizer, and the built-in Deployment, ReplicaSet and kubelet",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: opts.SyncPeriod})
			if err != nil {
				return nil, err
			}
			// What cmd/main.go does between ctrl.NewManager and mgr.Start.
			err = mgr.Setup(func(m ctrl.Manager) error {
				return (&controller.MemcachedReconciler{
					Client:     m.GetClient(),
					Scheme:     m.GetScheme(),
					Recorder:   m.GetEventRecorderFor("memcached-controller"),
					ForgetOwns: opts.ForgetOwns,
				}).SetupWithManager(m)
			}, crt.SetupOptions{
				Goals: map[string]crt.GoalFunc{"memcached": DeploymentsReady},
				Reads: []client.Object{&appsv1.Deployment{}},
			})
			if err != nil {
				return nil, err
			}
			for _, setup := range []crt.SetupFunc{builtin.Deployments(mgr), builtin.ReplicaSets(), builtin.Kubelet(mgr, builtin.KubeletOptions{})} {
				if err := mgr.Setup(setup, crt.SetupOptions{}); err != nil {
					return nil, err
				}
			}
			if err := c.AddActor(mgr.Actor("user", resize), 2); err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("default", "cache", 2))
		},
		Edits: []faults.EditTarget{
			{Resource: "Deployment"},
			{Resource: "Memcached"},
			{Resource: "Memcached", Path: "spec.size", Min: 1, Max: 3},
		},
	}
}

// New returns a Memcached of size pods.
func New(namespace, name string, size int32) *cachev1alpha1.Memcached {
	return &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       cachev1alpha1.MemcachedSpec{Size: size},
	}
}

// resize is a user's move: set spec.size of cache to 1..3.
func resize(ctx context.Context, c client.Client, choose func(int, string) int) error {
	var m cachev1alpha1.Memcached
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "cache"}, &m); err != nil {
		return client.IgnoreNotFound(err)
	}
	base := m.DeepCopy()
	m.Spec.Size = int32(1 + choose(3, "user picks a size"))
	return c.Patch(ctx, &m, client.MergeFrom(base))
}

// DeploymentsReady is the goal: a deleted Memcached is gone (its finalizer
// removed); every other one holds the finalizer, controls a Deployment of
// spec.size ready replicas, and says it is Available.
func DeploymentsReady(ctx context.Context, r client.Reader) []model.Unmet {
	var list cachev1alpha1.MemcachedList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	var out []model.Unmet
	for i := range list.Items {
		m := &list.Items[i]
		if !m.DeletionTimestamp.IsZero() {
			out = append(out, crt.Unmet(m, "is being deleted, yet still held by %v", m.Finalizers))
			continue
		}
		var dep appsv1.Deployment
		err := r.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}, &dep)
		switch {
		case !controllerutil.ContainsFinalizer(m, controller.Finalizer):
			out = append(out, crt.Unmet(m, "has no finalizer"))
		case err != nil:
			out = append(out, crt.Unmet(m, "has no Deployment: %v", err))
		case !metav1.IsControlledBy(&dep, m):
			out = append(out, crt.Unmet(m, "does not control Deployment %s", dep.Name))
		case dep.Spec.Replicas == nil || *dep.Spec.Replicas != m.Spec.Size:
			out = append(out, crt.Unmet(m, "wants %d replicas, its Deployment %v", m.Spec.Size, dep.Spec.Replicas))
		case dep.Status.ReadyReplicas != m.Spec.Size:
			out = append(out, crt.Unmet(m, "wants %d ready replicas, has %d", m.Spec.Size, dep.Status.ReadyReplicas))
		case !meta.IsStatusConditionTrue(m.Status.Conditions, "Available"):
			out = append(out, crt.Unmet(m, "is not Available: %v", meta.FindStatusCondition(m.Status.Conditions, "Available")))
		}
	}
	return out
}
