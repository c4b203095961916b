package controllerruntime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// copier keeps, for each ConfigMap not labelled a copy, a copy
// "<name>-copy" with the same data, and writes only through a typed
// clientset built from mgr.GetConfig(), as operators that hold a
// *kubernetes.Clientset do; it reads through the same clientset (the API
// server, not the cache). With dropErrors, it swallows a failed write: the
// bug the properties run must find.
type copier struct {
	Config     *rest.Config
	Clientset  *kubernetes.Clientset
	dropErrors bool
}

func (c *copier) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	err := c.reconcile(ctx, req)
	if c.dropErrors {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, err
}

func (c *copier) reconcile(ctx context.Context, req ctrl.Request) error {
	cms := c.Clientset.CoreV1().ConfigMaps(req.Namespace)
	src, err := cms.Get(ctx, req.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && src.Labels["copy"] != "") {
		return nil
	}
	if err != nil {
		return err
	}
	dst, err := cms.Get(ctx, req.Name+"-copy", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: req.Name + "-copy", Labels: map[string]string{"copy": "yes"}}, Data: src.Data}, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case fmt.Sprint(dst.Data) != fmt.Sprint(src.Data):
		dst.Data = src.Data
		_, err = cms.Update(ctx, dst, metav1.UpdateOptions{})
		return err
	}
	return nil
}

// copiesMatch is the copier's goal.
func copiesMatch(ctx context.Context, r client.Reader) []model.Unmet {
	var list corev1.ConfigMapList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	byName := map[string]corev1.ConfigMap{}
	for _, cm := range list.Items {
		byName[cm.Namespace+"/"+cm.Name] = cm
	}
	var unmet []model.Unmet
	for _, cm := range list.Items {
		if cm.Labels["copy"] != "" {
			continue
		}
		cp, ok := byName[cm.Namespace+"/"+cm.Name+"-copy"]
		if !ok || fmt.Sprint(cp.Data) != fmt.Sprint(cm.Data) {
			unmet = append(unmet, model.Unmet{Object: model.Ref{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name}, Message: "no copy with its data"})
		}
	}
	return unmet
}

func copierScenario(t *testing.T, dropErrors bool) properties.Scenario {
	conv := clientgoConverter(t)
	return properties.Scenario{
		Name: "copier",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m manager.Manager) error {
				cs, err := kubernetes.NewForConfig(m.GetConfig())
				if err != nil {
					return err
				}
				return ctrl.NewControllerManagedBy(m).For(&corev1.ConfigMap{}).Complete(&copier{Config: m.GetConfig(), Clientset: cs, dropErrors: dropErrors})
			}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"configmap": copiesMatch}})
			if err != nil {
				return nil, err
			}
			return c, mgr.Apply(
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}, Data: map[string]string{"k": "1"}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}, Data: map[string]string{"k": "2"}},
			)
		},
	}
}

// TestFaultsStrikeClientsetCalls: injected API errors and partitions
// fail the copier's clientset calls as they fail GetClient's, and the
// trace names the failed call. The first seed whose run has the fault
// strike a call is kept (the seeds are fixed, so the test is too).
func TestFaultsStrikeClientsetCalls(t *testing.T) {
	for _, tc := range []struct {
		kind faults.Kind
		want string
	}{
		{faults.KindAPIError, "(injected)"},
		{faults.KindPartition, "cannot reach the API server (partition)"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			for seed := range uint64(30) {
				res, err := properties.Search(copierScenario(t, false), faults.Mix{tc.kind}, properties.SearchOptions{Test: t, Checks: 1, Seed: seed + 1})
				require.NoError(t, err)
				require.Nil(t, res.Counterexample, "the copier retries and converges")
				var b strings.Builder
				require.NoError(t, res.Passed.Cluster.Trace().WriteText(&b))
				for line := range strings.SplitSeq(b.String(), "\n") {
					if strings.Contains(line, " configmap reconcile ") && strings.Contains(line, tc.want) {
						t.Logf("seed %d: %s", seed+1, line)
						return
					}
				}
			}
			t.Fatalf("no run of 30 seeds had a %s strike a clientset call", tc.kind)
		})
	}
}

// TestClientsetScenarioReplaysByteForByte: the same seed gives the same
// trace for a reconciler whose reads and writes go through a clientset.
func TestClientsetScenarioReplaysByteForByte(t *testing.T) {
	mix := faults.Mix{faults.KindAPIError, faults.KindPartition, faults.KindRestart, faults.KindDrop}
	for seed := range uint64(5) {
		var hashes []string
		for range 2 {
			res, err := properties.Search(copierScenario(t, false), mix, properties.SearchOptions{Test: t, Checks: 1, Seed: seed + 1})
			require.NoError(t, err)
			require.Nil(t, res.Counterexample)
			require.NotNil(t, res.Passed)
			hashes = append(hashes, res.Passed.Cluster.Trace().Hash())
		}
		assert.Equal(t, hashes[0], hashes[1], "seed %d", seed+1)
	}
}

// TestClientsetReconcilerUnderProperties: the copier, whose whole write
// path is a clientset, reaches its goal under every fault that strikes a
// controller's calls; the one that swallows a failed write is found
// broken.
func TestClientsetReconcilerUnderProperties(t *testing.T) {
	mix := faults.Mix{faults.KindAPIError, faults.KindPartition, faults.KindRestart, faults.KindDrop, faults.KindDuplicate, faults.KindDelay}
	res, err := properties.Search(copierScenario(t, false), mix, properties.SearchOptions{Test: t, Checks: 40, Seed: 1})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("the copier must converge:\n%s", cx.Report())
	}
	res, err = properties.Search(copierScenario(t, true), faults.Mix{faults.KindAPIError}, properties.SearchOptions{Test: t, Checks: 100, Seed: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample, "a copier that swallows a failed write must be caught")
	assert.Equal(t, properties.GoalUnmet, res.Counterexample.Failure.Verdict, res.Counterexample.Report())
}

// TestHandlesAreNotMemory: the copier holds a *rest.Config and a
// *kubernetes.Clientset; exploration fingerprints its memory whole.
func TestHandlesAreNotMemory(t *testing.T) {
	res, err := crt.Explore(t, copierScenario(t, false), faults.Mix{faults.KindRestart}, properties.ExploreOptions{Depth: 1})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample, res.Guarantee())
	assert.Empty(t, res.Unfingerprinted, res.Guarantee())
	assert.NotContains(t, res.Guarantee(), "not fingerprinted")
}
