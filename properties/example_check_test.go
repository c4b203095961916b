package properties_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// myReconciler is a controller author's own level-triggered ReplicaSet
// reconciler: it reads the ReplicaSet and the pods it owns from its
// informer cache and creates or deletes the difference.
type myReconciler struct{ c model.Client }

func (r *myReconciler) Reconcile(req model.Request) (model.Result, error) {
	rs, err := r.c.Get("ReplicaSet", req.Namespace, req.Name)
	if model.IsNotFound(err) {
		return model.Result{}, nil // the garbage collector removes its pods
	}
	if err != nil {
		return model.Result{}, err
	}
	pods, err := r.c.List("Pod", model.ListOptions{Namespace: rs.Namespace, Owner: rs.UID})
	if err != nil {
		return model.Result{}, err
	}
	var live []*model.Object
	for _, p := range pods {
		if !p.Deleting() {
			live = append(live, p)
		}
	}
	want := int(rs.Spec.Int("replicas"))
	for n := len(live); n < want; n++ {
		if err := r.c.Create(replicaset.NewPod(rs)); err != nil {
			return model.Result{}, err
		}
	}
	for _, p := range live[min(want, len(live)):] {
		if err := r.c.Delete(p.Ref(), model.DeleteOptions{UID: p.UID}); err != nil && !model.IsNotFound(err) {
			return model.Result{}, err
		}
	}
	return model.Result{}, nil
}

// A controller author's property test, as the README shows it: the world
// (a ReplicaSet, the controller under test with its goal, a chaos actor
// deleting pods) and the faults it must converge under. Check searches
// for a fault schedule under which it does not, and fails the test with
// the report. This example is compiled, not run: it needs a *testing.T.
func ExampleCheck() {
	testMyControllerConverges := func(t *testing.T) {
		sc := properties.Scenario{
			Name: "my-replicaset",
			Build: func(cfg model.Config) (*model.Cluster, error) {
				c := model.NewCluster(cfg)
				if err := c.AddController(model.Controller{
					Name:          "my-controller",
					For:           "ReplicaSet",
					Owns:          []string{"Pod"},
					ResyncPeriod:  20,
					NewReconciler: func(cl model.Client) model.Reconciler { return &myReconciler{c: cl} },
					Goal:          replicaset.PodsMatchReplicas, // what must hold at the fixed point
				}); err != nil {
					return nil, err
				}
				if err := c.AddActor(actors.Killer{Kind: "Pod"}, 2); err != nil { // chaos deletes two pods
					return nil, err
				}
				return c, c.Apply(replicaset.New("default", "web", 3))
			},
		}
		properties.Check(t, sc, faults.Mix{faults.KindDrop, faults.KindRestart})
	}
	_ = testMyControllerConverges // func TestMyControllerConverges(t *testing.T) in a _test.go file
}

// TestTheReadmeShowsExampleCheck: the README's property test is the body
// of ExampleCheck, which compiles, so the README's code does too.
func TestTheReadmeShowsExampleCheck(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	example, err := os.ReadFile("example_check_test.go")
	require.NoError(t, err)
	_, shown, ok := strings.Cut(string(readme), "func TestMyControllerConverges(t *testing.T) {\n")
	require.True(t, ok, "the README shows TestMyControllerConverges")
	shown, _, ok = strings.Cut(shown, "\n}\n```")
	require.True(t, ok)
	_, body, ok := strings.Cut(string(example), "testMyControllerConverges := func(t *testing.T) {\n")
	require.True(t, ok)
	body, _, ok = strings.Cut(body, "\n\t}\n\t_ = testMyControllerConverges")
	require.True(t, ok)
	assert.Equal(t, shown, strings.ReplaceAll(body, "\n\t", "\n")[1:])
}
