// Package applyfight shows two server-side apply managers of one
// Deployment: a GitOps sync that applies the declared spec as field
// manager "argocd", and an autoscaler that applies spec.replicas as field
// manager "hpa", both forcing ownership as controllers do. While git still
// declares replicas, the two take the field from each other forever (a
// fight, named by field manager); once git hands replicas over to the
// autoscaler by leaving it out, both converge. A sync that applies without
// forcing is stuck instead: every apply conflicts with hpa's replicas.
package applyfight

import (
	"context"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The declared image, git's replicas and the autoscaler's.
const (
	Image          = "shop:v2"
	GitReplicas    = 3
	ScaledReplicas = 5
)

// Sync applies the declared Deployment as field manager argocd.
type Sync struct {
	client.Client
	// DeclareReplicas keeps spec.replicas in the declared configuration,
	// so that the sync and the autoscaler both own it.
	DeclareReplicas bool
	// NoForce applies without ForceOwnership: once the autoscaler has
	// taken spec.replicas, every apply of the sync fails with a conflict.
	NoForce bool
}

// Reconcile applies the declared configuration of web.
func (s *Sync) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if req.Name != "web" {
		return ctrl.Result{}, nil
	}
	labels := map[string]string{"app": "web"}
	spec := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
		WithTemplate(corev1ac.PodTemplateSpec().
			WithLabels(labels).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("app").WithImage(Image))))
	if s.DeclareReplicas {
		spec.WithReplicas(GitReplicas)
	}
	ac := appsv1ac.Deployment(req.Name, req.Namespace).WithSpec(spec)
	opts := []client.ApplyOption{client.FieldOwner("argocd")}
	if !s.NoForce {
		opts = append(opts, client.ForceOwnership)
	}
	return ctrl.Result{}, s.Apply(ctx, ac, opts...)
}

// Autoscaler applies spec.replicas of every Deployment as field manager
// hpa: an apply configuration that holds the replicas alone. (A typed
// Deployment would not do: its non-omitempty fields, such as a null
// selector, would be applied and owned too.)
type Autoscaler struct{ client.Client }

// Reconcile scales one Deployment to ScaledReplicas.
func (a *Autoscaler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var d appsv1.Deployment
	if err := a.Get(ctx, req.NamespacedName, &d); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if d.Spec.Replicas != nil && *d.Spec.Replicas == ScaledReplicas {
		return ctrl.Result{}, nil
	}
	ac := appsv1ac.Deployment(d.Name, d.Namespace).WithSpec(appsv1ac.DeploymentSpec().WithReplicas(ScaledReplicas))
	return ctrl.Result{}, a.Apply(ctx, ac, client.FieldOwner("hpa"), client.ForceOwnership)
}

// Converter converts the client-go scheme's kinds.
func Converter() (*convert.Converter, error) {
	return convert.New(clientgoscheme.Scheme, convert.Options{})
}

// Options says which world a scenario builds.
type Options struct {
	// DeclareReplicas keeps spec.replicas in git; see Sync.
	DeclareReplicas bool
	// NoForce makes the sync apply without ForceOwnership; see Sync.
	NoForce bool
}

// Scenario runs the sync and the autoscaler over Deployment web, applied
// first by argocd with git's replicas and the old image.
func Scenario(name string, conv *convert.Converter, opts Options) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "two server-side apply managers of one Deployment's spec.replicas",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 20 * time.Second})
			if err != nil {
				return nil, err
			}
			err = crt.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Named("gitops").
				WithGoal(func(ctx context.Context, r client.Reader) []model.Unmet {
					return check(ctx, r, func(d *appsv1.Deployment) (string, bool) {
						img := d.Spec.Template.Spec.Containers[0].Image
						return "runs " + img + ", git declares " + Image, img == Image
					})
				}).
				Complete(func(cl client.Client) reconcile.Reconciler {
					return &Sync{Client: cl, DeclareReplicas: opts.DeclareReplicas, NoForce: opts.NoForce}
				})
			if err != nil {
				return nil, err
			}
			err = crt.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Named("autoscaler").
				WithGoal(func(ctx context.Context, r client.Reader) []model.Unmet {
					return check(ctx, r, func(d *appsv1.Deployment) (string, bool) {
						return "replicas not at the autoscaler's 5", d.Spec.Replicas != nil && *d.Spec.Replicas == ScaledReplicas
					})
				}).
				Complete(func(cl client.Client) reconcile.Reconciler { return &Autoscaler{Client: cl} })
			if err != nil {
				return nil, err
			}
			labels := map[string]string{"app": "web"}
			first := &appsv1.Deployment{
				TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
				Spec: appsv1.DeploymentSpec{
					Replicas: new(int32(GitReplicas)),
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop:v1"}}},
					},
				},
			}
			//lint:ignore SA1019 server-side apply through Patch, as operators written before Client.Apply do it
			return c, mgr.OutsideClient("setup").Patch(context.Background(), first, client.Apply, client.FieldOwner("argocd"))
		},
	}
}

func check(ctx context.Context, r client.Reader, ok func(*appsv1.Deployment) (string, bool)) []model.Unmet {
	var d appsv1.Deployment
	if err := r.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &d); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	if msg, good := ok(&d); !good {
		return []model.Unmet{crt.Unmet(&d, "%s", msg)}
	}
	return nil
}
