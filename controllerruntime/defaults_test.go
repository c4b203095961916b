package controllerruntime_test

import (
	"context"
	"reflect"
	"strconv"
	"testing"
	"testing/synctest"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// desiredDeployment is the Deployment an operator builds for its custom
// resource (here a ConfigMap stands for it): only the fields it cares
// about, none of those the API server defaults.
func desiredDeployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "web", Image: "nginx:1.27",
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}},
				}}},
			},
		},
	}
}

// syncedRevision counts an operator's updates of its Deployment, as an
// annotation on it: the write that makes an update that changes nothing
// else still a write, as many operators stamp what they applied.
const syncedRevision = "example.com/synced-revision"

// childOperator is a reconciler that keeps a Deployment per ConfigMap. It
// compares the stored spec with its desired one as a whole
// (reflect.DeepEqual) or, with ownFields, only the fields it sets; on a
// difference it writes its desired spec and bumps syncedRevision.
func childOperator(ownFields bool) properties.Scenario {
	return properties.Scenario{
		Name: "child-operator",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			m, err := crt.NewManager(c, testConv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			err = m.Setup(func(mgr manager.Manager) error {
				cl := mgr.GetClient()
				return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&appsv1.Deployment{}).Named("child").Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					var owner corev1.ConfigMap
					if err := cl.Get(ctx, req.NamespacedName, &owner); err != nil {
						return reconcile.Result{}, client.IgnoreNotFound(err)
					}
					want := desiredDeployment(req.Namespace, req.Name)
					if err := ctrl.SetControllerReference(&owner, want, mgr.GetScheme()); err != nil {
						return reconcile.Result{}, err
					}
					var got appsv1.Deployment
					if err := cl.Get(ctx, req.NamespacedName, &got); err != nil {
						if client.IgnoreNotFound(err) != nil {
							return reconcile.Result{}, err
						}
						return reconcile.Result{}, cl.Create(ctx, want)
					}
					same := reflect.DeepEqual(got.Spec, want.Spec)
					if ownFields {
						g, w := got.Spec.Template.Spec.Containers, want.Spec.Template.Spec.Containers
						same = got.Spec.Replicas != nil && *got.Spec.Replicas == *want.Spec.Replicas &&
							len(g) == 1 && g[0].Image == w[0].Image && len(g[0].Ports) == 1 && g[0].Ports[0].ContainerPort == w[0].Ports[0].ContainerPort
					}
					if same {
						return reconcile.Result{}, nil
					}
					n, _ := strconv.Atoi(got.Annotations[syncedRevision])
					got.Spec = want.Spec
					metav1.SetMetaDataAnnotation(&got.ObjectMeta, syncedRevision, strconv.Itoa(n+1))
					return reconcile.Result{}, cl.Update(ctx, &got)
				}))
			}, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			return c, m.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})
		},
	}
}

// TestComparingAWholeDefaultedSpecHotLoops: the API server fills a
// Deployment's defaults (replicas aside: strategy, revision limit, the
// pod spec's policies…), so an operator that DeepEquals its desired spec
// with the stored one finds them different at every reconcile and writes
// every time, as in a real cluster: a true finding. One that compares
// only its own fields settles after its create.
func TestComparingAWholeDefaultedSpecHotLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(childOperator(false), nil, nil, properties.RunOptions{DiscardTrace: true})
		require.NoError(t, err)
		require.NotNil(t, out.Failure, "a whole-spec comparison must be found looping")
		assert.Contains(t, []properties.Verdict{properties.HotLoop, properties.NoFixedPoint}, out.Failure.Verdict, out.Failure.Report(nil))
	})
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(childOperator(true), nil, nil, properties.RunOptions{DiscardTrace: true})
		require.NoError(t, err)
		require.Nil(t, out.Failure, "comparing its own fields, the operator settles")
		d := out.Cluster.State().Get("Deployment", "default", "web")
		require.NotNil(t, d)
		var typed appsv1.Deployment
		require.NoError(t, testConv.FromModel(d, &typed))
		assert.Empty(t, typed.Annotations[syncedRevision], "created once, never updated")
		assert.Equal(t, ptr.To[int32](10), typed.Spec.RevisionHistoryLimit, "stored with the API server's defaults")
		assert.Equal(t, corev1.PullIfNotPresent, typed.Spec.Template.Spec.Containers[0].ImagePullPolicy)
	})
}
