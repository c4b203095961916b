package properties_test

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiagnosisListsObjectsASelectorSelects: a ReplicaSet whose
// controller never adopts the pods its selector matches wants one pod and
// owns none. The owner references lead nowhere; the diagnosis lists the
// pods the ReplicaSet's spec selector selects, few one by one and many
// counted.
func TestDiagnosisListsObjectsASelectorSelects(t *testing.T) {
	for _, tc := range []struct {
		orphans int
		want    []string
	}{
		{2, []string{
			`→ Pod default/orphan-0 {containers[0].image: "nginx", containers[0].name: "app"} {} (selected by web (app=web))`,
			`→ Pod default/orphan-1 {containers[0].image: "nginx", containers[0].name: "app"} {} (selected by web (app=web))`,
		}},
		{3, []string{`→ 3 Pods selected by web (app=web): 3 with spec.containers[0].image, 3 with spec.containers[0].name`}},
	} {
		sc := properties.Scenario{Name: "no-adoption", Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(model.Controller{Name: "no-adoption", For: replicaset.Kind, Goal: replicaset.PodsMatchReplicas,
				NewReconciler: func(model.Client) model.Reconciler {
					return model.ReconcilerFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
				}}); err != nil {
				return nil, err
			}
			for i := range tc.orphans {
				pod := &model.Object{Kind: replicaset.PodKind, Namespace: "default", Name: "orphan-" + string(rune('0'+i)), Labels: model.NewLabels(map[string]string{"app": "web"}), Spec: replicaset.PodSpec("nginx")}
				if err := c.Apply(pod); err != nil {
					return nil, err
				}
			}
			stray := &model.Object{Kind: replicaset.PodKind, Namespace: "default", Name: "stray", Labels: model.NewLabels(map[string]string{"app": "db"})}
			if err := c.Apply(stray); err != nil {
				return nil, err
			}
			return c, c.Apply(replicaset.New("default", "web", 1))
		}}
		res, err := properties.Search(sc, nil, properties.SearchOptions{Checks: 1, Seed: 1, Test: t})
		require.NoError(t, err)
		require.NotNil(t, res.Counterexample)
		require.Equal(t, properties.GoalUnmet, res.Counterexample.Failure.Verdict)
		lines := res.Counterexample.Failure.Diagnosis
		for _, line := range tc.want {
			assert.Contains(t, lines, "  "+line, "%d orphans:\n%s", tc.orphans, strings.Join(lines, "\n"))
		}
		assert.NotContains(t, strings.Join(lines, "\n"), "stray", "the selector does not select it")
	}
}

// TestDiagnosisListsObjectsAWatchMapsToTheObject: a controller whose
// Watches map sends a ConfigMap's events to the ReplicaSet it configures
// links the two though no owner reference does; the diagnosis lists the
// ConfigMap under the ReplicaSet, with when the map last sent it there.
func TestDiagnosisListsObjectsAWatchMapsToTheObject(t *testing.T) {
	sc := properties.Scenario{Name: "configured", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(model.Controller{Name: "configured", For: replicaset.Kind, Goal: replicaset.PodsMatchReplicas,
			Watches: []model.Watch{{Kind: "ConfigMap", Map: func(_ model.Client, o *model.Object) []model.Request {
				return []model.Request{{Namespace: o.Namespace, Name: o.Spec.Str("data.replicaset")}}
			}}},
			NewReconciler: func(model.Client) model.Reconciler {
				return model.ReconcilerFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
			}}); err != nil {
			return nil, err
		}
		if err := c.Apply(&model.Object{Kind: "ConfigMap", Namespace: "default", Name: "settings", Spec: model.NewFields(model.Values{"data.replicaset": "web"})}); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 1))
	}}
	res, err := properties.Search(sc, nil, properties.SearchOptions{Checks: 1, Seed: 1, Test: t})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	lines := res.Counterexample.Failure.Diagnosis
	assert.Contains(t, lines, `  → ConfigMap default/settings {data.replicaset: "web"} {} (configured's watch mapped it to default/web at t=0, step 3)`, strings.Join(lines, "\n"))
}
