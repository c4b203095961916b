package statefulset

import (
	"errors"
	"slices"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// Options configures the StatefulSet controller.
type Options struct {
	// Name of the controller; default "statefulset".
	Name string
	// Resync is the informer resync period; zero turns resync off.
	Resync model.Time
	// DeleteClaimsOnScaleDown makes the controller delete the claims of a
	// pod it scales away itself, whatever the retention policy says. It is
	// a deliberate bug, for tests that show a scenario catches it.
	DeleteClaimsOnScaleDown bool
}

// Controller returns the StatefulSet controller: each reconcile reads the
// StatefulSet, its pods and its claims from the cache, makes at most the
// next step of its ordered plan (one create or delete under OrderedReady,
// all of them under Parallel), and writes status from what it read.
func Controller(opts Options) model.Controller {
	if opts.Name == "" {
		opts.Name = "statefulset"
	}
	return model.Controller{
		Name:         opts.Name,
		For:          Kind,
		Owns:         []string{replicaset.PodKind},
		Watches:      []model.Watch{{Kind: PVCKind, Map: claimToSets}},
		ResyncPeriod: opts.Resync,
		NewReconciler: func(c model.Client) model.Reconciler {
			return &reconciler{c: c, opts: opts}
		},
		Goal: Complete,
	}
}

// claimToSets maps a claim's events to the StatefulSets whose selector
// covers its labels.
func claimToSets(c model.Client, claim *model.Object) []model.Request {
	sets, _ := c.PeekList(Kind, model.ListOptions{Namespace: claim.Namespace})
	var out []model.Request
	for _, s := range sets {
		if sel, ok := model.SpecSelector(s); ok && sel.Matches(claim.Labels) {
			out = append(out, model.RequestFor(s))
		}
	}
	return out
}

type reconciler struct {
	c    model.Client
	opts Options
}

// view is what one reconcile read: the set, its spec, its live pods by
// ordinal within replicas, its condemned pods (ordinal ≥ replicas) from the
// highest ordinal down, and its claims by name.
type view struct {
	set       *model.Object
	sp        setSpec
	replicas  []*model.Object
	condemned []*model.Object
	ordinals  map[*model.Object]int
	claims    map[string]*model.Object
	update    string
	current   string
}

func (r *reconciler) Reconcile(req model.Request) (model.Result, error) {
	set, err := r.c.Get(Kind, req.Namespace, req.Name)
	if model.IsNotFound(err) {
		return model.Result{}, nil // the garbage collector removes its pods
	}
	if err != nil {
		return model.Result{}, err
	}
	if set.Deleting() {
		return model.Result{}, nil
	}
	sp, err := parse(set)
	if err != nil {
		return model.Result{}, nil // the goal reports it; no retry mends a spec
	}
	v, err := r.read(set, sp)
	if err != nil {
		return model.Result{}, err
	}
	// Status reflects the pods this reconcile read, as in Kubernetes' own
	// ReplicaSet controller here: the events of its writes bring it back.
	status := expectedStatus(set, v.pods())
	manageErr := r.manage(v)
	if set.Status.Equal(status) {
		return model.Result{}, manageErr
	}
	set.Status = status
	if err := r.c.UpdateStatus(set); err != nil {
		return model.Result{}, errors.Join(manageErr, err)
	}
	return model.Result{}, manageErr
}

// pods returns the live pods of the view, in ordinal order.
func (v *view) pods() []*model.Object {
	var out []*model.Object
	for _, p := range v.replicas {
		if p != nil {
			out = append(out, p)
		}
	}
	for _, p := range slices.Backward(v.condemned) {
		out = append(out, p)
	}
	return out
}

// read gathers the view of set from the cache, without copying: the pods
// and claims are only read, and copied before a write.
func (r *reconciler) read(set *model.Object, sp setSpec) (*view, error) {
	pods, err := r.c.PeekList(replicaset.PodKind, model.ListOptions{Namespace: set.Namespace, Owner: set.UID})
	if err != nil {
		return nil, err
	}
	claims, err := r.c.PeekList(PVCKind, model.ListOptions{Namespace: set.Namespace, Selector: sp.selector})
	if err != nil {
		return nil, err
	}
	v := &view{
		set: set, sp: sp, replicas: make([]*model.Object, sp.replicas),
		ordinals: map[*model.Object]int{}, claims: map[string]*model.Object{},
		update: Revision(set), current: set.Status.Str("currentRevision"),
	}
	if v.current == "" {
		v.current = v.update
	}
	for _, c := range claims {
		v.claims[c.Name] = c
	}
	for _, p := range pods {
		i, ok := ordinal(set.Name, p.Name)
		if !ok || !p.IsControlledBy(set) {
			continue
		}
		v.ordinals[p] = i
		if i < sp.replicas {
			v.replicas[i] = p
		} else {
			v.condemned = append(v.condemned, p)
		}
	}
	slices.SortFunc(v.condemned, func(a, b *model.Object) int { return v.ordinals[b] - v.ordinals[a] })
	return v, nil
}

// manage makes the next steps of the plan, as Kubernetes' StatefulSet
// controller does: create the missing pods of ordinals below replicas
// (their claims first), then delete the condemned ones from the highest
// ordinal down, then replace, from the highest ordinal down to the
// partition, the pods of an old revision. Under OrderedReady it stops at
// the first step it makes and at the first pod that is not running and
// ready; under Parallel it makes every create and delete at once. An
// update replaces one pod at a time under either policy, and waits for
// the replacement to be ready.
func (r *reconciler) manage(v *view) error {
	monotonic := !v.sp.parallel
	for i, pod := range v.replicas {
		if pod == nil {
			created, err := r.create(v, i)
			if err != nil {
				return err
			}
			v.replicas[i] = created
			if monotonic {
				return nil
			}
			continue
		}
		if err := r.fixClaims(v, pod, i); err != nil {
			return err
		}
		if monotonic && !RunningAndReady(pod) {
			return nil
		}
	}
	firstUnhealthy := r.firstUnhealthy(v)
	for _, pod := range v.condemned {
		if pod.Deleting() {
			if monotonic {
				return nil
			}
			continue
		}
		if monotonic && firstUnhealthy != nil && pod != firstUnhealthy {
			return nil
		}
		if err := r.fixClaims(v, pod, v.ordinals[pod]); err != nil {
			return err
		}
		if err := r.delete(pod); err != nil {
			return err
		}
		if r.opts.DeleteClaimsOnScaleDown {
			if err := r.deleteClaims(v, v.ordinals[pod]); err != nil {
				return err
			}
		}
		if monotonic {
			return nil
		}
	}
	if v.sp.onDelete {
		return nil
	}
	for i := len(v.replicas) - 1; i >= v.sp.partition; i-- {
		pod := v.replicas[i]
		if pod.UID == "" {
			return nil // created by this reconcile: not ready yet
		}
		if pod.Labels[RevisionLabel] != v.update && !pod.Deleting() {
			return r.delete(pod)
		}
		if !RunningAndReady(pod) {
			return nil
		}
	}
	return nil
}

// firstUnhealthy returns the lowest-ordinal pod within replicas that is not
// running and ready, else the highest condemned one, as Kubernetes picks
// the one pod a monotonic scale-down may delete while another is
// unhealthy.
func (r *reconciler) firstUnhealthy(v *view) *model.Object {
	for _, p := range v.replicas {
		if p != nil && !RunningAndReady(p) {
			return p
		}
	}
	for _, p := range v.condemned {
		if !RunningAndReady(p) {
			return p
		}
	}
	return nil
}

// create makes the claims of ordinal i that are missing, then its pod: of
// the current revision below the partition, copied from a pod of that
// revision if one is left, else of the update revision. An object that
// already exists (a cache that has not seen it yet) is not an error.
func (r *reconciler) create(v *view, i int) (*model.Object, error) {
	for _, t := range v.sp.claims {
		if _, ok := v.claims[ClaimName(t.name, v.set.Name, i)]; ok {
			continue
		}
		claim := newClaim(v.set, v.sp, t, i)
		if bySet, _ := wantedOwners(v.set, nil, v.sp, i); bySet {
			claim.OwnerReferences = []model.OwnerReference{ref(v.set)}
		}
		if err := r.c.Create(claim); err != nil && !model.IsAlreadyExists(err) {
			return nil, err
		}
	}
	revision, like := v.update, (*model.Object)(nil)
	if !v.sp.onDelete && i < v.sp.partition && v.current != v.update {
		like = r.podOf(v, v.current)
		if like != nil {
			revision = v.current
		}
	}
	pod := newPod(v.set, v.sp, i, revision, like)
	if err := r.c.Create(pod); err != nil && !model.IsAlreadyExists(err) {
		return nil, err
	}
	return pod, nil
}

// podOf returns the lowest-ordinal live pod of the revision, or nil.
func (r *reconciler) podOf(v *view, revision string) *model.Object {
	for _, p := range append(slices.Clone(v.replicas), v.condemned...) {
		if p != nil && p.UID != "" && !p.Deleting() && p.Labels[RevisionLabel] == revision {
			return p
		}
	}
	return nil
}

// fixClaims creates the missing claims of a live pod and sets the owner
// references of its claims as the retention policy wants them.
func (r *reconciler) fixClaims(v *view, pod *model.Object, i int) error {
	if pod.Deleting() {
		return nil
	}
	bySet, byPod := wantedOwners(v.set, pod, v.sp, i)
	for _, t := range v.sp.claims {
		name := ClaimName(t.name, v.set.Name, i)
		claim, ok := v.claims[name]
		if !ok {
			if i >= v.sp.replicas {
				continue // a condemned pod's claim is not made again
			}
			claim = newClaim(v.set, v.sp, t, i)
			if bySet {
				claim.OwnerReferences = []model.OwnerReference{ref(v.set)}
			}
			if err := r.c.Create(claim); err != nil && !model.IsAlreadyExists(err) {
				return err
			}
			continue
		}
		owners, changed := withOwners(claim, v.set, pod, bySet, byPod)
		if !changed || claim.Deleting() {
			continue
		}
		claim = claim.DeepCopy()
		claim.OwnerReferences = owners
		if err := r.c.Update(claim); err != nil {
			return err
		}
	}
	return nil
}

// delete deletes a pod as read, with its UID as precondition.
func (r *reconciler) delete(pod *model.Object) error {
	err := r.c.Delete(pod.Ref(), model.DeleteOptions{UID: pod.UID})
	if model.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteClaims deletes the claims of ordinal i: the deliberate bug of
// Options.DeleteClaimsOnScaleDown.
func (r *reconciler) deleteClaims(v *view, i int) error {
	for _, t := range v.sp.claims {
		c, ok := v.claims[ClaimName(t.name, v.set.Name, i)]
		if !ok {
			continue
		}
		if err := r.c.Delete(c.Ref(), model.DeleteOptions{UID: c.UID}); err != nil && !model.IsNotFound(err) {
			return err
		}
	}
	return nil
}
