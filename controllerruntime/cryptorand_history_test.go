package controllerruntime_test

import (
	"context"
	"crypto/rand"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestASecretFromCryptoRandIsTheSameInTheReferenceRun: an operator fills
// the Secret it owns from crypto/rand; the run's seed is a draw of the
// run (model.SeedLabel), and the history-dependent oracle's reference run
// replays it, so the fresh cluster writes the same password and the
// oracle does not blame the randomness. Without the replay, every run is
// reported history-dependent on the Secret's password (seen).
func TestASecretFromCryptoRandIsTheSameInTheReferenceRun(t *testing.T) {
	sc := properties.Scenario{
		Name: "owned-secrets",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			m, err := crt.NewManager(c, testConv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			err = m.Setup(func(mgr manager.Manager) error {
				return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Named("secrets").Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					var cm corev1.ConfigMap
					if err := mgr.GetClient().Get(ctx, req.NamespacedName, &cm); err != nil {
						return reconcile.Result{}, client.IgnoreNotFound(err)
					}
					s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name}, StringData: map[string]string{"password": rand.Text()}}
					if err := controllerutil.SetControllerReference(&cm, s, mgr.GetScheme()); err != nil {
						return reconcile.Result{}, err
					}
					return reconcile.Result{}, client.IgnoreAlreadyExists(mgr.GetClient().Create(ctx, s))
				}))
			}, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			return c, m.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}, Data: map[string]string{"k": "1"}})
		},
		Inputs: &properties.Inputs{
			Target: model.Ref{Kind: "ConfigMap", Namespace: "default", Name: "a"},
			Spec:   rapid.Just(model.NewFields(model.Values{"data.k": "2"})),
			Max:    1,
		},
	}
	res, err := properties.Search(sc, nil, properties.SearchOptions{Checks: 10, Seed: 1, Test: t})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("no history dependence expected:\n%s", cx.Report())
	}
	assert.Equal(t, 10, res.Runs)
}
