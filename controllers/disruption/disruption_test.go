package disruption_test

import (
	"testing"

	"github.com/converge-sim/converge/controllers/disruption"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readyPod returns a ready pod with the given labels.
func readyPod(name string, labels map[string]string) *model.Object {
	return &model.Object{
		Kind: replicaset.PodKind, Namespace: "default", Name: name, Labels: model.NewLabels(labels),
		Status: replicaset.RunningReady(),
	}
}

// TestEvictionAndTheControllerAgreeOnATwoLabelBudget: a budget selecting
// app=web,tier=front covers the same pods for the disruption controller,
// which counts them healthy, and for the eviction API, which refuses to
// evict them (and only them) once the budget allows no disruption.
func TestEvictionAndTheControllerAgreeOnATwoLabelBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		selector model.Fields
	}{
		{"plain", model.NewFields(model.Values{"selector.app": "web", "selector.tier": "front"})},
		{"matchLabels", model.NewFields(model.Values{"selector.matchLabels.app": "web", `selector.matchLabels["tier"]`: "front"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := model.NewCluster(model.Config{})
			require.NoError(t, c.AddController(disruption.Controller()))
			spec := model.NewFields(model.Values{"minAvailable": int64(2)})
			for k, v := range tc.selector.All() {
				spec.Set(k, v)
			}
			pdb := &model.Object{Kind: disruption.Kind, Namespace: "default", Name: "front", Spec: spec}
			pods := []*model.Object{
				readyPod("front-1", map[string]string{"app": "web", "tier": "front"}),
				readyPod("front-2", map[string]string{"app": "web", "tier": "front", "zone": "a"}),
				readyPod("back", map[string]string{"app": "web", "tier": "back"}),
				readyPod("untiered", map[string]string{"app": "web"}),
				readyPod("other-app", map[string]string{"app": "db", "tier": "front"}),
			}
			require.NoError(t, c.Apply(append([]*model.Object{pdb}, pods...)...))
			require.NoError(t, c.Start())
			for range 100 {
				acts := c.Enabled(nil)
				if len(acts) == 0 {
					break
				}
				c.Do(acts[0])
			}
			require.Empty(t, disruption.UpToDate(c.State()))
			got := c.Server().Peek(pdb.Ref())
			assert.Equal(t, int64(2), got.Status.Int("currentHealthy"), "the controller counts front-1 and front-2")
			assert.Equal(t, int64(0), got.Status.Int("disruptionsAllowed"))

			s := c.Server()
			for _, p := range pods {
				err := s.Evict("drain", p.Ref())
				if p.Labels.Value("app") == "web" && p.Labels.Value("tier") == "front" {
					assert.Equal(t, model.ReasonTooManyReqs, model.ReasonOf(err), "%s is covered: %v", p.Name, err)
				} else {
					assert.NoError(t, err, "%s is not covered", p.Name)
				}
			}
		})
	}
}
