package controllerruntime_test

import (
	"context"
	"flag"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var measureLoops = flag.Bool("converge.measureloops", false, "measure a looping search (TestMeasureALoopingSearch)")

// TestMeasureALoopingSearch searches the operator that compares a whole
// defaulted spec (a write at every reconcile, for ever) under restarts
// and logs the clusters its search and shrink built and the steps they
// made (BENCHMARKS.md, "A loop that repeats stops").
//
//	go test -c -o crt.test . && ./crt.test -test.run TestMeasureALoopingSearch -test.v -converge.measureloops
func TestMeasureALoopingSearch(t *testing.T) {
	if !*measureLoops {
		t.Skip("a measurement: run with -converge.measureloops")
	}
	sc := childOperator(false)
	build := sc.Build
	var built []*model.Cluster
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c, err := build(cfg)
		built = append(built, c)
		return c, err
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindRestart, faults.KindDelay}, properties.SearchOptions{Checks: 5, Seed: 1, Wrap: properties.InBubble(t), Test: t})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	steps := 0
	for _, c := range built {
		steps += c.Steps()
	}
	cx := res.Counterexample
	t.Logf("MEASURE %s, %d faults, %d steps, %d choices: %d clusters built, %d steps in all; trace %s", cx.Failure.Verdict, len(cx.Schedule), cx.Steps, len(cx.Choices), len(built), steps, cx.Trace.Hash())
}

// flipReconciler writes its ConfigMap's data.phase back and forth at
// every reconcile: its own write wakes it again, and the cluster never
// settles, coming back to the same state every two writes.
type flipReconciler struct {
	Client client.Client
}

func (r *flipReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	if cm.Data["phase"] == "odd" {
		cm.Data["phase"] = "even"
	} else {
		cm.Data["phase"] = "odd"
	}
	return reconcile.Result{}, r.Client.Update(ctx, &cm)
}

// TestMeasureAFlippingSearch is TestMeasureALoopingSearch for an operator
// that flips a field back and forth (flipReconciler).
//
//	./crt.test -test.run TestMeasureAFlippingSearch -test.v -converge.measureloops
func TestMeasureAFlippingSearch(t *testing.T) {
	if !*measureLoops {
		t.Skip("a measurement: run with -converge.measureloops")
	}
	var built []*model.Cluster
	sc := properties.Scenario{Name: "flipper", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		built = append(built, c)
		m, err := crt.NewManager(c, testConv, crt.ManagerOptions{})
		if err != nil {
			return nil, err
		}
		if err := m.Setup(func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Named("flip").Complete(&flipReconciler{Client: mgr.GetClient()})
		}, crt.SetupOptions{}); err != nil {
			return nil, err
		}
		return c, m.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})
	}}
	res, err := properties.Search(sc, faults.Mix{faults.KindRestart, faults.KindDelay}, properties.SearchOptions{Checks: 5, Seed: 1, Wrap: properties.InBubble(t), Test: t})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	steps := 0
	for _, c := range built {
		steps += c.Steps()
	}
	cx := res.Counterexample
	t.Logf("MEASURE %s, %d faults, %d steps, %d choices: %d clusters built, %d steps in all; trace %s", cx.Failure.Verdict, len(cx.Schedule), cx.Steps, len(cx.Choices), len(built), steps, cx.Trace.Hash())
}
