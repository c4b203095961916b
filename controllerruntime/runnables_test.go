package controllerruntime_test

import (
	"context"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// metricsExporter is a Runnable nothing under test depends on.
type metricsExporter struct{ started *bool }

func (e metricsExporter) Start(context.Context) error {
	*e.started = true
	return nil
}

// TestInertRunnablesAreAcceptedAndNeverRun: a Runnable that
// SetupOptions.Inert accepts is added and never started, while the
// project's controller runs; one it does not accept is an error naming
// the option.
func TestInertRunnablesAreAcceptedAndNeverRun(t *testing.T) {
	conv := clientgoConverter(t)
	started, reconciled := false, false
	setup := func(m manager.Manager) error {
		if err := m.Add(metricsExporter{started: &started}); err != nil {
			return err
		}
		return ctrl.NewControllerManagedBy(m).For(&corev1.ConfigMap{}).Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			reconciled = true
			return reconcile.Result{}, nil
		}))
	}
	inert := func(r manager.Runnable) bool { _, ok := r.(metricsExporter); return ok }

	mgr, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{})
	require.NoError(t, err)
	err = mgr.Setup(setup, crt.SetupOptions{})
	require.ErrorContains(t, err, "Add(controllerruntime_test.metricsExporter)")
	require.ErrorContains(t, err, "SetupOptions.Inert")

	sc := properties.Scenario{Name: "inert", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		m, err := crt.NewManager(c, conv, crt.ManagerOptions{})
		if err != nil {
			return nil, err
		}
		if err := m.Setup(setup, crt.SetupOptions{Inert: inert}); err != nil {
			return nil, err
		}
		return c, m.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
	}}
	_, err = properties.Execute(sc, nil, &properties.ReplayChooser{}, properties.RunOptions{})
	require.NoError(t, err)
	assert.True(t, reconciled, "the controller runs")
	assert.False(t, started, "the inert runnable is never started")
}

// TestASecondCacheIsRefused: a cache built from mgr.GetConfig() and added
// with mgr.Add is an error that says why and what to read instead, even
// when SetupOptions.Inert would accept it.
func TestASecondCacheIsRefused(t *testing.T) {
	conv := clientgoConverter(t)
	mgr, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{})
	require.NoError(t, err)
	err = mgr.Setup(func(m manager.Manager) error {
		c, err := cache.New(m.GetConfig(), cache.Options{Scheme: m.GetScheme(), Mapper: m.GetRESTMapper()})
		if err != nil {
			return err
		}
		return m.Add(c)
	}, crt.SetupOptions{Inert: func(manager.Runnable) bool { return true }})
	require.ErrorContains(t, err, "a second cache runs informers of its own")
	require.ErrorContains(t, err, "mgr.GetCache()")
}
