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
	// NoExpectations turns off the controller's expectations: it then
	// acts on a pod cache that has not caught up with its own creates and
	// deletes, and may, under OrderedReady, create a pod while a lower one
	// it has just deleted still looks ready in its cache. It is for tests
	// that show a scenario catches that.
	NoExpectations bool
	// DeleteClaimsOnScaleDown makes the controller delete the claims of a
	// pod it scales away itself, whatever the retention policy says. It is
	// a deliberate bug, for tests that show a scenario catches it.
	DeleteClaimsOnScaleDown bool
}

// Controller returns the StatefulSet controller: each reconcile reads the
// StatefulSet, its pods and its claims from the cache, makes at most the
// next step of its ordered plan (one create or delete under OrderedReady,
// all of them under Parallel), and writes status from what it read. It
// does not act until its pod cache has caught up with its own last creates
// and deletes (its expectations), polling every few ticks meanwhile.
func Controller(opts Options) model.Controller {
	if opts.Name == "" {
		opts.Name = "statefulset"
	}
	return model.Controller{
		Name:         opts.Name,
		For:          Kind,
		Owns:         []string{replicaset.PodKind},
		Watches:      []model.Watch{{Kind: PVCKind, Map: claimToSets}, {Kind: replicaset.PodKind, Map: orphanToSets}},
		ResyncPeriod: opts.Resync,
		NewReconciler: func(c model.Client) model.Reconciler {
			return &reconciler{c: c, opts: opts, expect: map[string]*expectation{}}
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

// orphanToSets maps the events of a pod that has no controller to the
// StatefulSets that may adopt it: those whose selector covers its labels
// and whose ordinal pods its name is (a set orphan-deleted and created
// again finds its pods this way).
func orphanToSets(c model.Client, pod *model.Object) []model.Request {
	if _, owned := pod.ControllerRef(); owned || pod.Deleting() {
		return nil
	}
	var out []model.Request
	for _, r := range claimToSets(c, pod) {
		if _, member := ordinal(r.Name, pod.Name); member {
			out = append(out, r)
		}
	}
	return out
}

// reconciler keeps, per StatefulSet, the expectation of its last writes
// to pods: until its pod cache has caught up with them it does not act, so
// that it never orders pods on a view that misses its own creates and
// deletes (a deleted pod that still looks ready, say). Kubernetes'
// ReplicaSet controller keeps such expectations; here the StatefulSet
// controller does too. A restart loses them, and relists.
type reconciler struct {
	c      model.Client
	opts   Options
	expect map[string]*expectation
}

// expectationsPoll is how long, in ticks, a reconcile waits for its pod
// cache to catch up with its own writes before it looks again.
const expectationsPoll = 5

// expectation is what the pod cache must have applied: every create up to
// resourceVersion rv, and the deletes of the pods by UID.
type expectation struct {
	rv      uint64
	deletes []deleted
}

// deleted is a pod the controller deleted: its name and UID.
type deleted struct {
	ref model.Ref
	uid model.UID
}

// satisfied reports whether the pod cache has caught up with the
// expectation of key, and forgets it if so.
func (r *reconciler) satisfied(key string) (bool, error) {
	exp := r.expect[key]
	if exp == nil {
		return true, nil
	}
	synced, err := r.c.LastSyncResourceVersion(replicaset.PodKind)
	if err != nil || synced < exp.rv {
		return false, err
	}
	for _, gone := range exp.deletes {
		if p, err := r.c.Peek(gone.ref.Kind, gone.ref.Namespace, gone.ref.Name); err == nil && p.UID == gone.uid {
			return false, nil
		}
	}
	delete(r.expect, key)
	return true, nil
}

// wrote records a create (created) or a delete (gone) of a pod of key.
func (r *reconciler) wrote(key string, created, gone *model.Object) {
	if r.opts.NoExpectations {
		return
	}
	exp := r.expect[key]
	if exp == nil {
		exp = &expectation{}
		r.expect[key] = exp
	}
	if created != nil {
		exp.rv = max(exp.rv, created.ResourceVersion)
	}
	if gone != nil {
		exp.deletes = append(exp.deletes, deleted{gone.Ref(), gone.UID})
	}
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
		delete(r.expect, req.Key())
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
	// The cache may lag behind events that are not the set's (a delay, a
	// stale informer): poll until it has caught up.
	if ok, err := r.satisfied(req.Key()); !ok || err != nil {
		return model.Result{RequeueAfter: expectationsPoll}, err
	}
	if adopted, err := r.adopt(set, sp); adopted || err != nil {
		return model.Result{}, err // the events of its adoptions bring it back
	}
	v, err := r.read(set, sp)
	if err != nil {
		return model.Result{}, err
	}
	// Status reflects the pods this reconcile read, as in Kubernetes' own
	// ReplicaSet controller here: the events of its writes bring it back.
	status := expectedStatus(set, v.update, v.pods())
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

// pods returns the pods of the view, those being deleted included, in
// ordinal order.
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

// adopt makes set the controller of its orphaned ordinal pods, as
// Kubernetes' StatefulSet controller claims them: live pods with no
// controller whose labels its selector covers and whose names are its
// ordinals. A set deleted with the Orphan policy and created again (to
// change what may not be updated, such as its volumeClaimTemplates) so
// takes its pods back instead of creating them again. It reports whether
// it adopted any.
func (r *reconciler) adopt(set *model.Object, sp setSpec) (bool, error) {
	pods, err := r.c.PeekList(replicaset.PodKind, model.ListOptions{Namespace: set.Namespace, Selector: sp.selector})
	if err != nil {
		return false, err
	}
	adopted := false
	for _, p := range pods {
		if _, owned := p.ControllerRef(); owned || p.Deleting() {
			continue
		}
		if _, member := ordinal(set.Name, p.Name); !member {
			continue
		}
		claimed := p.DeepCopy()
		claimed.OwnerReferences = append(claimed.OwnerReferences, model.NewOwnerReference(set))
		if err := r.c.Update(claimed); err != nil {
			return adopted, err
		}
		adopted = true
	}
	return adopted, nil
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
	firstUnhealthy := v.firstUnhealthy()
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
		if err := r.delete(v.set, pod); err != nil {
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
		if pod.Labels.Value(RevisionLabel) != v.update && !pod.Deleting() {
			return r.delete(v.set, pod)
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
func (v *view) firstUnhealthy() *model.Object {
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
		like = v.podOf(v.current)
		if like != nil {
			revision = v.current
		}
	}
	pod := newPod(v.set, v.sp, i, revision, like)
	if err := r.c.Create(pod); err != nil && !model.IsAlreadyExists(err) {
		return nil, err
	}
	if pod.UID != "" {
		r.wrote(v.set.Key(), pod, nil)
	}
	return pod, nil
}

// podOf returns the lowest-ordinal live pod of the revision, or nil.
func (v *view) podOf(revision string) *model.Object {
	for _, p := range v.pods() {
		if p.UID != "" && !p.Deleting() && p.Labels.Value(RevisionLabel) == revision {
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

// delete deletes a pod of set as read, with its UID as precondition, and
// expects its cache to drop it.
func (r *reconciler) delete(set, pod *model.Object) error {
	err := r.c.Delete(pod.Ref(), model.DeleteOptions{UID: pod.UID})
	if err != nil && !model.IsNotFound(err) {
		return err
	}
	r.wrote(set.Key(), nil, pod)
	return nil
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
