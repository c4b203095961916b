package replicaset_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scale-down deletes the least available pods first, as Kubernetes'
// ReplicaSet controller ranks them: an unscheduled pod, then a scheduled
// one that is not ready, and a ready one only when no other is left. The
// pods are named so that name order alone would delete the ready ones.
func TestAScaleDownDeletesTheLeastAvailablePodsFirst(t *testing.T) {
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(replicaset.Level(replicaset.LevelOptions{})))
	rs := replicaset.New("default", "web", 4)
	require.NoError(t, c.Apply(rs))
	pod := func(name, node string, ready bool) *model.Object {
		p := replicaset.NewPod(c.Server().Peek(rs.Ref()))
		p.GenerateName, p.Name = "", name
		if node != "" {
			p.Spec.Set("nodeName", node)
		}
		if ready {
			p.Status = replicaset.RunningReady()
		}
		return p
	}
	require.NoError(t, c.Apply(pod("web-a", "", false), pod("web-b", "node-1", false), pod("web-c", "node-1", true), pod("web-d", "node-1", true)))
	require.NoError(t, c.Start())
	settle(c)

	out := c.Outside("user")
	live, err := out.Get(replicaset.Kind, "default", "web")
	require.NoError(t, err)
	require.NoError(t, out.Set(live, "spec.replicas", int64(2)))
	settle(c)

	var left []string
	pods, _ := c.Server().List(replicaset.PodKind, model.ListOptions{Namespace: "default"})
	for _, p := range pods {
		left = append(left, p.Name)
	}
	assert.Equal(t, []string{"web-c", "web-d"}, left, "the unscheduled and the unready pod go first")
}

// settle runs the cluster's owed work until nothing is left.
func settle(c *model.Cluster) {
	var acts []model.Action
	for range 200 {
		if acts = c.Enabled(acts[:0]); len(acts) == 0 {
			return
		}
		c.Do(acts[0])
	}
}

// Ready finds the Ready condition at any index of the list, the first
// where the package's kubelets write it, and past the paths it keeps made.
func TestReadyFindsTheReadyConditionAtAnyIndex(t *testing.T) {
	withReady := func(at int, status string) *model.Object {
		v := model.Values{}
		for i := 0; i <= at; i++ {
			n := fmt.Sprint(i)
			v["conditions["+n+"].type"], v["conditions["+n+"].status"] = fmt.Sprintf("Other%d", i), "True"
		}
		n := fmt.Sprint(at)
		v["conditions["+n+"].type"], v["conditions["+n+"].status"] = "Ready", status
		return &model.Object{Kind: replicaset.PodKind, Name: "p", Status: model.NewFields(v)}
	}
	for _, at := range []int{0, 1, 7, 8, 12} {
		assert.True(t, replicaset.Ready(withReady(at, "True")), "Ready=True at %d", at)
		assert.False(t, replicaset.Ready(withReady(at, "False")), "Ready=False at %d", at)
	}
	assert.False(t, replicaset.Ready(&model.Object{Kind: replicaset.PodKind, Name: "p"}), "no conditions")
	gap := model.NewFields(model.Values{"conditions[1].type": "Ready", "conditions[1].status": "True"})
	assert.True(t, replicaset.Ready(&model.Object{Kind: replicaset.PodKind, Name: "p", Status: gap}), "a list without its first condition is still read at 1")
}
