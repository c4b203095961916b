package scenarios

import (
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/node"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// statefulSetWriter is the caller name of the StatefulSet controller in
// the scenario.
const statefulSetWriter = "statefulset"

// StatefulSet is two StatefulSets on three nodes: web, ordered
// (OrderedReady) with claims the retention policy keeps, updated by a
// rolling update down to a partition; and db, Parallel, whose claims go
// with a scale-down and with the set. A user rescales them, rolls out new
// images and moves web's partition, a chaos actor deletes pods and a node
// dies. It must converge under every healable fault, never lose a claim
// the retention policy keeps, and create web's pods in order.
func StatefulSet() properties.Scenario {
	return statefulSetScenario("statefulset", statefulset.Options{Resync: resyncPeriod},
		"StatefulSets (OrderedReady and Parallel) with volume claims, rescaled and rolled out with a partition; converges under every healable fault and keeps retained claims")
}

// statefulSetScenario is the StatefulSet scenario running ctrl.
func statefulSetScenario(name string, opts statefulset.Options, doc string) properties.Scenario {
	return properties.Scenario{
		Name:    name,
		Program: Fuzzrun,
		Doc:     doc,
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			statefulset.Install(c)
			ctrls := append(chainControllers()[1:], statefulset.Controller(opts))
			if err := addAll(c, ctrls, []actorMoves{
				{actors.Scaler{Kind: statefulset.Kind, Field: "replicas", Min: 0, Max: 4}, 2},
				{actors.Set{Actor: "rollout", Kind: statefulset.Kind, Path: "spec." + replicaset.TemplateImagePath, Values: []any{"app:v2", "app:v3"}}, 2},
				{actors.Set{Actor: "partition", Kind: statefulset.Kind, Path: "spec.updateStrategy.rollingUpdate.partition", Values: []any{int64(0), int64(2)}}, 1},
				{actors.Killer{Kind: replicaset.PodKind}, 2},
				{actors.Set{Actor: "node-failure", Kind: "Node", Path: "status." + node.ReadyStatusPath, Values: []any{"False"}}, 1},
			}); err != nil {
				return nil, err
			}
			web := statefulset.New("default", "web", 3, "app:v1", "data")
			web.Spec.Set("updateStrategy.rollingUpdate.partition", int64(1))
			db := statefulset.New("default", "db", 2, "app:v1", "data", "logs")
			db.Spec.Set("podManagementPolicy", statefulset.Parallel)
			db.Spec.Set("persistentVolumeClaimRetentionPolicy.whenScaled", statefulset.Delete)
			db.Spec.Set("persistentVolumeClaimRetentionPolicy.whenDeleted", statefulset.Delete)
			return c, c.Apply(append(nodes(), web, db)...)
		},
		Edits: []faults.EditTarget{
			{Resource: replicaset.PodKind},
			{Resource: statefulset.Kind, Path: "spec.replicas", Min: 0, Max: 4},
		},
		Monitors: func(c *model.Cluster) []properties.Invariant {
			return []properties.Invariant{retainedClaimsKept(c), createdInOrder(c, "web")}
		},
		Expect: []properties.Expectation{{Faults: Healable}},
	}
}

// retainedClaimsKept is the safety invariant of the StatefulSet scenario:
// a claim that nothing owns, which the retention policy keeps, is never
// deleted. (The garbage collector only deletes claims the StatefulSet
// controller handed to it with an owner reference.)
func retainedClaimsKept(c *model.Cluster) properties.Invariant {
	var lost []string
	c.OnWrite(func(w model.Write) {
		if w.Ref().Kind == statefulset.PVCKind && w.Old != nil && len(w.Old.OwnerReferences) == 0 &&
			(w.New == nil || w.New.Deleting()) {
			lost = append(lost, fmt.Sprintf("%s (deleted by %s)", w.Ref(), w.Caller))
		}
	})
	return properties.Invariant{
		Name: "retained claims are never deleted",
		Check: func(model.State) error {
			if len(lost) > 0 {
				return fmt.Errorf("lost claims the retention policy keeps: %v", lost)
			}
			return nil
		},
		Fingerprint: func(h hash.Hash64) { writeMemory(h, nil, lost) },
	}
}

// createdInOrder is the ordering invariant of an OrderedReady StatefulSet:
// the controller creates the pod of ordinal i only while the pods of the
// ordinals below are running and ready. It holds until an involuntary
// disruption (a pod deleted by anyone but the StatefulSet controller, a
// node dying) takes a lower pod away from under a reconcile that read it.
func createdInOrder(c *model.Cluster, set string) properties.Invariant {
	disrupted := false
	var broken error
	c.OnWrite(func(w model.Write) {
		ref := w.Ref()
		switch {
		case broken != nil || disrupted:
		case ref.Kind == replicaset.PodKind && w.New == nil && w.Caller != statefulSetWriter:
			disrupted = true
		case ref.Kind == "Node" && w.Old != nil && w.New != nil && node.Alive(w.Old) && !node.Alive(w.New):
			disrupted = true
		case ref.Kind == replicaset.PodKind && w.Old == nil && w.Caller == statefulSetWriter:
			rest, ok := strings.CutPrefix(ref.Name, set+"-")
			n, err := strconv.Atoi(rest)
			if !ok || err != nil {
				return // another set's pod
			}
			s := c.State()
			for i := range n {
				name := statefulset.PodName(set, i)
				if p := s.Get(replicaset.PodKind, ref.Namespace, name); p == nil || !statefulset.RunningAndReady(p) {
					broken = fmt.Errorf("created %s while %s is not running and ready", ref, name)
					return
				}
			}
		}
	})
	return properties.Invariant{
		Name:  "OrderedReady pods are created in order",
		Check: func(model.State) error { return broken },
		Fingerprint: func(h hash.Hash64) {
			var msg []string
			if broken != nil {
				msg = []string{broken.Error()}
			}
			writeMemory(h, []bool{disrupted}, msg)
		},
	}
}
