package schemaops

import (
	"context"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Bases is the directory of this package's CRD manifests.
func Bases() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "config", "crd", "bases")
}

// World is what every scenario of this package shares: the converter and
// the loaded CRDs, built once.
type World struct {
	Conv *convert.Converter
	CRDs *crd.Set
}

// NewWorld builds the converter of NewScheme and loads the CRDs.
func NewWorld() (World, error) {
	conv, err := convert.New(NewScheme(), convert.Options{})
	if err != nil {
		return World{}, err
	}
	crds, err := crd.Load(Bases())
	if err != nil {
		return World{}, err
	}
	return World{Conv: conv, CRDs: crds}, nil
}

func (w World) manager(c *model.Cluster, validate bool) (*crt.Manager, error) {
	opts := crt.ManagerOptions{SyncPeriod: 20 * time.Second}
	if validate {
		opts.CRDs = w.CRDs
	}
	return crt.NewManager(c, w.Conv, opts)
}

// BatchScenario runs the Batch controller over one Batch that asks for
// 12 workers, more than status.active may list. validate serves the CRDs
// (without it the model accepts any status, as before CRD support).
func (w World) BatchScenario(name string, capped, validate bool) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "a Batch controller whose status lists its pods, against the CRD's maxItems",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := w.manager(c, validate)
			if err != nil {
				return nil, err
			}
			err = crt.NewControllerManagedBy(mgr).
				For(&Batch{}).
				Owns(&corev1.Pod{}).
				Named("batch").
				WithGoal(batchesReported).
				Complete(func(cl client.Client) reconcile.Reconciler {
					return &BatchReconciler{Client: cl, Scheme: mgr.GetScheme(), Capped: capped}
				})
			if err != nil {
				return nil, err
			}
			return c, mgr.Apply(&Batch{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nightly"},
				Spec:       BatchSpec{Parallelism: 12, Image: "worker:v2"},
			})
		},
	}
}

// batchesReported is the Batch controller's goal: every Batch has
// spec.parallelism pods and reports them all for its generation.
func batchesReported(ctx context.Context, r client.Reader) []model.Unmet {
	var list BatchList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	var out []model.Unmet
	for i := range list.Items {
		b := &list.Items[i]
		var pods corev1.PodList
		if err := r.List(ctx, &pods, client.InNamespace(b.Namespace), client.MatchingLabels{"batch": b.Name}); err != nil {
			return []model.Unmet{{Message: err.Error()}}
		}
		switch {
		case len(pods.Items) != int(b.Spec.Parallelism):
			out = append(out, crt.Unmet(b, "wants %d pods, has %d", b.Spec.Parallelism, len(pods.Items)))
		case b.Status.ActiveCount != b.Spec.Parallelism || b.Status.ObservedGeneration != b.Generation:
			out = append(out, crt.Unmet(b, "reports %d active pods for generation %d, has %d for generation %d",
				b.Status.ActiveCount, b.Status.ObservedGeneration, len(pods.Items), b.Generation))
		}
	}
	return out
}

// Live is the App as it runs when the scenario starts, and Declared what
// git now declares for it: a new image and another storage class.
var (
	Live     = AppSpec{Image: "shop:v1", Replicas: 2, StorageClass: "standard"}
	Declared = AppSpec{Image: "shop:v2", Replicas: 2, StorageClass: "fast"}
)

// SyncScenario runs the GitOps sync and the App's health controller over
// one App, shop, whose declared spec changes its immutable storage class.
func (w World) SyncScenario(name string, replace bool) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "a GitOps sync against an immutable field (CEL self == oldSelf)",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := w.manager(c, true)
			if err != nil {
				return nil, err
			}
			declared := map[string]AppSpec{"shop": Declared}
			err = crt.NewControllerManagedBy(mgr).
				For(&App{}).
				Named("gitops").
				WithGoal(func(ctx context.Context, r client.Reader) []model.Unmet { return inSync(ctx, r, declared) }).
				Complete(func(cl client.Client) reconcile.Reconciler {
					return &SyncReconciler{Client: cl, Declared: declared, Replace: replace}
				})
			if err != nil {
				return nil, err
			}
			err = crt.NewControllerManagedBy(mgr).
				For(&App{}).
				Named("health").
				WithGoal(Healthy).
				Complete(func(cl client.Client) reconcile.Reconciler { return &HealthReconciler{Client: cl} })
			if err != nil {
				return nil, err
			}
			return c, mgr.Apply(&App{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "shop"}, Spec: Live})
		},
	}
}

// inSync is the sync's goal: every declared App runs as declared.
func inSync(ctx context.Context, r client.Reader, declared map[string]AppSpec) []model.Unmet {
	var out []model.Unmet
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		want := declared[name]
		var app App
		if err := r.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &app); err != nil {
			out = append(out, model.Unmet{Object: model.Ref{Kind: "App", Namespace: "default", Name: name}, Message: err.Error()})
			continue
		}
		if app.Spec != want {
			out = append(out, crt.Unmet(&app, "runs %+v, git declares %+v", app.Spec, want))
		}
	}
	return out
}

// Healthy is the health controller's goal: every App is ready for its
// current generation.
func Healthy(ctx context.Context, r client.Reader) []model.Unmet {
	var list AppList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	var out []model.Unmet
	for i := range list.Items {
		if a := &list.Items[i]; !a.Status.Ready || a.Status.ObservedGeneration != a.Generation {
			out = append(out, crt.Unmet(a, "not ready for generation %d", a.Generation))
		}
	}
	return out
}
