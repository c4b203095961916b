package controllerruntime_test

import (
	"context"
	"fmt"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/examples/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The smallest use, as the package comment shows it: a properties.Scenario
// whose Build declares an ordinary controller-runtime reconciler with this
// package's look-alike builder, then a search for a schedule of dropped
// notifications under which it does not converge. The reconciler resyncs
// every 20 seconds, so it survives them.
func Example() {
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	if err != nil {
		panic(err)
	}
	sc := properties.Scenario{
		Name: "my-replicaset",
		// The program that replays a finding: one that calls
		// fuzzrun.Main(sc), run from the module root.
		Program: "go run ./cmd/mycheck",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 20 * time.Second})
			if err != nil {
				return nil, err
			}
			err = crt.NewControllerManagedBy(mgr).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).
				WithGoal(replicaset.PodsMatchReplicas).
				Complete(func(cl client.Client) reconcile.Reconciler {
					return &replicaset.Reconciler{Client: cl, Scheme: mgr.GetScheme()}
				})
			if err != nil {
				return nil, err
			}
			return c, mgr.Apply(replicaset.New("default", "web", 3))
		},
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindDrop}, properties.SearchOptions{Checks: 20, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println("counterexample found:", res.Counterexample != nil)
	// Output:
	// counterexample found: false
}

// MyReconciler stands for a kubebuilder project's reconciler.
type MyReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// Reconcile does nothing: the example is about the setup.
func (r *MyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return ctrl.Result{}, nil
}

// SetupWithManager is the project's own, as kubebuilder scaffolds it.
func (r *MyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).Complete(r)
}

// A kubebuilder or operator-sdk project runs as it is: Setup hands the
// project's own setup (the SetupWithManager calls of its main.go) a
// manager of the model, and the real ctrl.NewControllerManagedBy builds the
// controllers. The goal is keyed by the controller's name, here the For
// kind in lower case.
func ExampleManager_Setup() {
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	if err != nil {
		panic(err)
	}
	c := model.NewCluster(model.Config{})
	mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
	if err != nil {
		panic(err)
	}
	myGoal := func(ctx context.Context, r client.Reader) []model.Unmet { return nil }

	err = mgr.Setup(func(m ctrl.Manager) error {
		return (&MyReconciler{Client: m.GetClient(), Scheme: m.GetScheme()}).SetupWithManager(m)
	}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"replicaset": myGoal}})
	fmt.Println(err, c.Controllers())
	// Output:
	// <nil> [replicaset]
}
