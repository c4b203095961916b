// Package database is a StatefulSet-managing operator of converge's own,
// in a broken and a fixed form, for the database scenarios of the catalog.
// A Database (spec.replicas, spec.storage) runs as a StatefulSet of the
// same name with one volume claim template, "data"; when spec.storage
// grows, the operator grows the claims data-<db>-<i> by patching their
// requests, since the API server forbids changing a StatefulSet's
// volumeClaimTemplates (statefulset.Validate). The StatefulSet keeps the
// template it was created with.
//
// The broken operator records the new size in its status ("resized to X")
// before it patches the claims, and trusts that record afterwards: a crash
// between the status write and the claim patches leaves the claims small
// forever. The fixed operator compares the wanted size with each claim's
// own request every time (level-triggered) and writes its status last, as
// a report.
package database

import (
	"fmt"
	"hash"
	"strings"

	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/controllers/volume"
	"github.com/converge-sim/converge/model"
)

// Kind is the operator's custom resource.
const Kind = "Database"

// Template is the name of the StatefulSet's one volume claim template.
const Template = "data"

// NameLabel carries, on the StatefulSet's pods and claims, the name of
// their Database.
const NameLabel = "database"

// Image is what the database pods run.
const Image = "postgres:16"

// StoragePath is the status field that says which size the operator has
// resized the claims to.
const StoragePath = "storage"

// Options configures the operator.
type Options struct {
	// Name of the controller; default "database".
	Name string
	// Resync is the informer resync period; zero turns resync off.
	Resync model.Time
	// TrustStatus is the bug: the operator writes status.storage first
	// and then patches the claims, and does nothing while status.storage
	// equals spec.storage.
	TrustStatus bool
}

// New returns a Database of replicas pods with storage each.
func New(namespace, name string, replicas int64, storage string) *model.Object {
	return &model.Object{Kind: Kind, Namespace: namespace, Name: name,
		Spec: model.NewFields(model.Values{"replicas": replicas, "storage": storage})}
}

// Controller returns the operator. It owns the StatefulSet and watches the
// claims, which carry the Database's name in NameLabel.
func Controller(opts Options) model.Controller {
	if opts.Name == "" {
		opts.Name = "database"
	}
	return model.Controller{
		Name:         opts.Name,
		For:          Kind,
		Owns:         []string{statefulset.Kind},
		Watches:      []model.Watch{{Kind: volume.ClaimKind, Map: claimToDatabase}},
		ResyncPeriod: opts.Resync,
		NewReconciler: func(c model.Client) model.Reconciler {
			return &reconciler{c: c, opts: opts}
		},
		Goal: Ready,
	}
}

// claimToDatabase maps a claim's events to its Database.
func claimToDatabase(_ model.Client, claim *model.Object) []model.Request {
	if name := claim.Labels.Value(NameLabel); name != "" {
		return []model.Request{{Namespace: claim.Namespace, Name: name}}
	}
	return nil
}

// spec is a Database's spec, read and checked.
type spec struct {
	replicas int64
	storage  string // as written
	want     int64  // MiB
}

func parse(db *model.Object) (spec, error) {
	sp := spec{replicas: db.Spec.Int("replicas"), storage: db.Spec.Str("storage")}
	if sp.replicas < 0 {
		return sp, fmt.Errorf("has negative replicas %d", sp.replicas)
	}
	var err error
	if sp.want, err = volume.ParseStorage(sp.storage); err != nil {
		return sp, fmt.Errorf("spec.storage: %v", err)
	}
	return sp, nil
}

// ClaimName is the name of a Database's claim for ordinal i.
func ClaimName(db string, i int) string { return statefulset.ClaimName(Template, db, i) }

// NewStatefulSet returns the StatefulSet of db: Parallel pod management,
// one claim template of storage.
func NewStatefulSet(db *model.Object, replicas int64, storage string) *model.Object {
	return &model.Object{
		Kind: statefulset.Kind, Namespace: db.Namespace, Name: db.Name,
		OwnerReferences: []model.OwnerReference{model.NewOwnerReference(db)},
		Spec: model.NewFields(model.Values{
			"replicas": replicas, "selector.matchLabels." + NameLabel: db.Name,
			"template.spec.containers[0].name": "db", "template.spec.containers[0].image": Image,
			"template.metadata.labels." + NameLabel:                   db.Name,
			"podManagementPolicy":                                     statefulset.Parallel,
			"volumeClaimTemplates[0].metadata.name":                   Template,
			"volumeClaimTemplates[0].spec.resources.requests.storage": storage,
		}),
	}
}

type reconciler struct {
	c    model.Client
	opts Options
}

// Fingerprint writes nothing: the operator keeps no memory between
// reconciles (model.Fingerprinter, for bounded exploration).
func (r *reconciler) Fingerprint(hash.Hash64) {}

// requeue is how long, in ticks, the broken operator waits for the claims
// to be bound before it looks again.
const requeue = 5

func (r *reconciler) Reconcile(req model.Request) (model.Result, error) {
	db, err := r.c.Get(Kind, req.Namespace, req.Name)
	if model.IsNotFound(err) {
		return model.Result{}, nil // the garbage collector removes the set
	}
	if err != nil || db.Deleting() {
		return model.Result{}, err
	}
	sp, err := parse(db)
	if err != nil {
		return model.Result{}, nil // the goal reports it; no retry mends a spec
	}
	set, err := r.c.Get(statefulset.Kind, db.Namespace, db.Name)
	if model.IsNotFound(err) {
		err = r.c.Create(NewStatefulSet(db, sp.replicas, sp.storage))
		if model.IsAlreadyExists(err) {
			err = nil // a cache that has not seen it yet
		}
		return model.Result{}, err
	}
	if err != nil {
		return model.Result{}, err
	}
	if !set.IsControlledBy(db) {
		return model.Result{}, nil // not ours: the goal reports it
	}
	if set.Spec.Int("replicas") != sp.replicas {
		set.Spec.Set("replicas", sp.replicas)
		if err := r.c.Update(set); err != nil {
			return model.Result{}, err
		}
	}
	claims := make([]*model.Object, sp.replicas)
	for i := range claims {
		claims[i], err = r.c.Peek(volume.ClaimKind, db.Namespace, ClaimName(db.Name, i))
		if err != nil && !model.IsNotFound(err) {
			return model.Result{}, err
		}
	}
	if r.opts.TrustStatus {
		return r.resizeTrustingStatus(db, sp, claims)
	}
	return model.Result{}, r.resize(db, sp, claims)
}

// resize is the fixed resize path: grow every bound claim whose request is
// below the wanted size, and once every claim has the capacity, say so in
// the status. A claim that is missing or not bound yet brings the Database
// back with its own events.
func (r *reconciler) resize(db *model.Object, sp spec, claims []*model.Object) error {
	done := true
	for _, claim := range claims {
		if claim == nil || claim.Status.Str("phase") != volume.Bound {
			done = false
			continue
		}
		if err := r.grow(claim, sp); err != nil {
			return err
		}
		if have, _ := volume.Capacity(claim); have < sp.want {
			done = false
		}
	}
	if !done || db.Status.Str(StoragePath) == sp.storage {
		return nil
	}
	db.Status.Set(StoragePath, sp.storage)
	return r.c.UpdateStatus(db)
}

// resizeTrustingStatus is the broken resize path: once every claim is
// bound, it records the new size in the status, then patches the claims;
// and it does nothing while the status says the size is reached.
func (r *reconciler) resizeTrustingStatus(db *model.Object, sp spec, claims []*model.Object) (model.Result, error) {
	if db.Status.Str(StoragePath) == sp.storage {
		return model.Result{}, nil // resized already, says the status
	}
	for _, claim := range claims {
		if claim == nil || claim.Status.Str("phase") != volume.Bound {
			return model.Result{RequeueAfter: requeue}, nil
		}
	}
	db.Status.Set(StoragePath, sp.storage)
	if err := r.c.UpdateStatus(db); err != nil {
		return model.Result{}, err
	}
	for _, claim := range claims {
		if err := r.grow(claim, sp); err != nil {
			return model.Result{}, err
		}
	}
	return model.Result{}, nil
}

// grow patches a claim's request up to the wanted size if it is below: an
// unconditional write of the request alone, as a merge patch is (nothing
// else of a claim's spec may change, and its status is not written).
func (r *reconciler) grow(claim *model.Object, sp spec) error {
	if have, err := volume.Request(claim); err != nil || have >= sp.want {
		return nil
	}
	patch := claim.DeepCopy()
	patch.ResourceVersion = 0
	patch.Spec.Set(volume.RequestPath, sp.storage)
	return r.c.Update(patch)
}

// Ready is the operator's goal: every Database has its StatefulSet, of its
// replicas, controlled by it; every claim of an ordinal below replicas
// exists with at least spec.storage of capacity; and status.storage says
// spec.storage.
func Ready(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, db := range s.List(Kind, model.ListOptions{}) {
		if db.Deleting() {
			continue
		}
		unmet := func(format string, args ...any) {
			out = append(out, model.Unmet{Object: db.Ref(), Message: fmt.Sprintf(format, args...)})
		}
		sp, err := parse(db)
		if err != nil {
			unmet("%v", err)
			continue
		}
		set := s.Get(statefulset.Kind, db.Namespace, db.Name)
		switch {
		case set == nil:
			unmet("has no StatefulSet")
			continue
		case !set.IsControlledBy(db):
			unmet("does not control StatefulSet %s", set.Ref())
			continue
		case set.Spec.Int("replicas") != sp.replicas:
			unmet("wants %d replicas, its StatefulSet has %d", sp.replicas, set.Spec.Int("replicas"))
		}
		var small []string
		for i := range int(sp.replicas) {
			name := ClaimName(db.Name, i)
			claim := s.Get(volume.ClaimKind, db.Namespace, name)
			if claim == nil {
				small = append(small, name+" missing")
				continue
			}
			if have, _ := volume.Capacity(claim); have < sp.want {
				small = append(small, fmt.Sprintf("%s has capacity %q (requests %s)", name,
					claim.Status.Str(volume.CapacityPath), claim.Spec.Str(volume.RequestPath)))
			}
		}
		if len(small) > 0 {
			unmet("wants storage %s, but claim %s; status says storage %q", sp.storage, strings.Join(small, ", claim "), db.Status.Str(StoragePath))
		} else if st := db.Status.Str(StoragePath); st != sp.storage {
			unmet("status says storage %q, spec wants %s", st, sp.storage)
		}
	}
	return out
}
