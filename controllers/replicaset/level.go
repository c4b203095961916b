package replicaset

import (
	"cmp"
	"errors"
	"slices"

	"github.com/converge-sim/converge/model"
)

// LevelOptions configures the level-triggered controller.
type LevelOptions struct {
	// Name of the controller; default "replicaset".
	Name string
	// Resync is the informer resync period; zero turns resync off.
	Resync model.Time
	// Expectations makes the controller remember the resourceVersion of
	// its last creates and deletes and skip scaling until its pod cache has
	// caught up with them, as the Kubernetes ReplicaSet controller's
	// expectations do; without it a reconcile that runs on a cache lagging
	// behind its own writes over-creates.
	Expectations bool
	// ExpectationsTTL is how long unmet expectations block scaling before
	// the controller gives up on them; default 50 ticks.
	ExpectationsTTL model.Time
}

// Level returns the level-triggered ReplicaSet controller: each reconcile
// reads the ReplicaSet and its pods from the cache, creates or deletes the
// difference, and writes status from what it read.
func Level(opts LevelOptions) model.Controller {
	if opts.Name == "" {
		opts.Name = "replicaset"
	}
	if opts.ExpectationsTTL == 0 {
		opts.ExpectationsTTL = 50
	}
	return model.Controller{
		Name:         opts.Name,
		For:          Kind,
		Owns:         []string{PodKind},
		ResyncPeriod: opts.Resync,
		NewReconciler: func(c model.Client) model.Reconciler {
			return &level{c: c, opts: opts, expect: map[model.Request]*expectation{}}
		},
		Goal: func(s model.State) []model.Unmet {
			return append(PodsMatchReplicas(s), StatusReflectsPods(s)...)
		},
	}
}

type level struct {
	c      model.Client
	opts   LevelOptions
	expect map[model.Request]*expectation
}

// expectation is what the controller waits for after scaling: its pod
// cache has applied its creates (it has synced up to rv, the version of the
// last one: a pod created and deleted since still counts as seen) and has
// dropped the pods it deleted.
type expectation struct {
	rv      uint64
	deletes []*model.Object
	since   model.Time
}

func (r *level) Reconcile(req model.Request) (model.Result, error) {
	rs, err := r.c.Get(Kind, req.Namespace, req.Name)
	if model.IsNotFound(err) {
		delete(r.expect, req)
		return model.Result{}, nil // the garbage collector removes its pods
	}
	if err != nil {
		return model.Result{}, err
	}
	if rs.Deleting() {
		return model.Result{}, nil
	}
	// The pods are only read: list them without copying, as a lister
	// does, from the owner index (a pod the ReplicaSet controls carries
	// its reference).
	pods, err := r.c.PeekList(PodKind, model.ListOptions{Namespace: rs.Namespace, Owner: rs.UID})
	if err != nil {
		return model.Result{}, err
	}
	active := activePods(pods, rs)

	var result model.Result
	var manageErr error
	if r.satisfied(req) {
		manageErr = r.manage(req, rs, active)
	} else {
		result.RequeueAfter = r.opts.ExpectationsTTL
	}

	// Status reflects the pods this reconcile read, as in Kubernetes: the
	// events of its own creates and deletes trigger the next update.
	var ready int64
	for _, p := range active {
		if Ready(p) {
			ready++
		}
	}
	if !statusHolds(rs.Status, int64(len(active)), ready, rs.Generation) {
		rs.Status = statusFields(int64(len(active)), ready, rs.Generation)
		if err := r.c.UpdateStatus(rs); err != nil {
			return model.Result{}, errors.Join(manageErr, err)
		}
	}
	return result, manageErr
}

// manage creates or deletes pods to close the gap between spec.replicas and
// the active pods, stopping at the first failed call.
func (r *level) manage(req model.Request, rs *model.Object, active []*model.Object) error {
	diff := int(rs.Spec.Int("replicas")) - len(active)
	if diff == 0 {
		return nil
	}
	var exp *expectation // what this scaling leaves to wait for, with expectations
	if r.opts.Expectations {
		exp = &expectation{since: r.c.Now()}
		defer func() {
			if exp.rv > 0 || len(exp.deletes) > 0 {
				r.expect[req] = exp
			}
		}()
	}
	for ; diff > 0; diff-- {
		pod := NewPod(rs)
		if err := r.c.Create(pod); err != nil {
			return err
		}
		if exp != nil {
			exp.rv = pod.ResourceVersion
		}
	}
	for _, victim := range victims(active, -diff) {
		err := r.c.Delete(victim.Ref(), model.DeleteOptions{UID: victim.UID})
		if err != nil && !model.IsNotFound(err) {
			return err
		}
		if exp != nil {
			exp.deletes = append(exp.deletes, victim)
		}
	}
	return nil
}

// victims returns the n pods a scale-down deletes, the least available
// first, as Kubernetes' ReplicaSet controller ranks them: unscheduled
// pods, then scheduled ones that are not ready, then ready ones; among
// equals the last in name order. Deleting a ready pod while an unready one
// is left would take a Deployment below its maxUnavailable, which counts
// on the unready ones going first.
//
// It ranks active in place: the reconcile owns that slice (activePods
// filters the list it made) and only counts it afterwards.
func victims(active []*model.Object, n int) []*model.Object {
	if n <= 0 {
		return nil // a reconcile that scaled up, or not at all, ranks nothing
	}
	ranked := active
	slices.Reverse(ranked)
	slices.SortStableFunc(ranked, func(a, b *model.Object) int { return cmp.Compare(availability(a), availability(b)) })
	return ranked[:n]
}

// availability ranks a pod for victims: 0 unscheduled, 1 scheduled but not
// ready, 2 ready.
func availability(p *model.Object) int {
	switch {
	case p.Spec.Str("nodeName") == "":
		return 0
	case !Ready(p):
		return 1
	}
	return 2
}

// satisfied reports whether the pod cache has caught up with the last
// scaling of req's ReplicaSet, or the expectations have expired. Without
// expectations it is always true.
func (r *level) satisfied(req model.Request) bool {
	exp := r.expect[req]
	if exp == nil {
		return true
	}
	if r.c.Now()-exp.since >= r.opts.ExpectationsTTL {
		delete(r.expect, req)
		return true
	}
	if synced, err := r.c.LastSyncResourceVersion(PodKind); err != nil || synced < exp.rv {
		return false
	}
	for _, victim := range exp.deletes {
		if p, err := r.c.Get(PodKind, victim.Namespace, victim.Name); err == nil && p.UID == victim.UID {
			return false
		}
	}
	delete(r.expect, req)
	return true
}

// statusFields returns the status the reconcile writes, as
// model.NewFields of the three counts would, without the map: set in path
// order, so the builder keeps the pairs as they are, unsorted
// (BENCHMARKS.md, "Sixth round").
func statusFields(replicas, ready, generation int64) model.Fields {
	var b model.FieldsBuilder
	b.Grow(3)
	b.Set("observedGeneration", generation)
	b.Set("readyReplicas", ready)
	b.Set("replicas", replicas)
	return b.Fields()
}

// statusHolds reports whether status is exactly the three counts the
// reconcile writes, as status.Equal(model.NewFields(...)) of them would,
// without building the Fields or the map: most reconciles find the status
// already right.
func statusHolds(status model.Fields, replicas, ready, generation int64) bool {
	return status.Len() == 3 && holdsInt(status, "replicas", replicas) &&
		holdsInt(status, "readyReplicas", ready) && holdsInt(status, "observedGeneration", generation)
}

// holdsInt reports whether f holds the int64 v at path.
func holdsInt(f model.Fields, path string, v int64) bool {
	got, ok := f.Get(path)
	return ok && got == any(v)
}
