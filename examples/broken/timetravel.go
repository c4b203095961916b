package broken

import (
	"fmt"
	"hash"
	"slices"

	"github.com/converge-sim/converge/model"
)

// The App kinds of the time-travel pair: an App holds its data on
// Volumes named after it, and its controller deletes them when the App is
// deleted.
const (
	// AppKind is the parent kind: spec.volumes says how many volumes.
	AppKind = "App"
	// VolumeKind is the child kind: a volume holds an App's data, which a
	// new volume of the same name does not have.
	VolumeKind = "Volume"
	// CleanupFinalizer holds a deleted App until its volumes are gone.
	CleanupFinalizer = "example.com/volume-cleanup"
)

// NewApp returns an App with the given number of volumes.
func NewApp(namespace, name string, volumes int64) *model.Object {
	return &model.Object{Kind: AppKind, Namespace: namespace, Name: name, Spec: model.NewFields(model.Values{"volumes": volumes})}
}

// VolumeName is the name of an App's i-th volume.
func VolumeName(app string, i int64) string { return fmt.Sprintf("%s-data-%d", app, i) }

// DeletesByName is a level-triggered App controller that creates each
// App's volumes, holds a deleted App with a finalizer, and then deletes
// the volumes by name before it lets the App go. It never checks whose
// volume a name now belongs to. Relisted from an API server behind (the
// timetravel fault), its cache shows an App that has since been deleted
// and recreated under the same name with its old deletion timestamp, and
// it deletes the NEW App's volumes: their data is lost, even though it
// then catches up and creates empty ones. Monotonic faults (stale,
// delay, expire, restart) never show a deletion timestamp after the
// controller has seen the App that replaced it, so only time travel
// exposes it. ChecksVolumeOwner is the fix.
func DeletesByName() model.Controller { return appCleanup("deletes-by-name", false, 0) }

// ChecksVolumeOwner is DeletesByName with the checks it forgot: it deletes
// only a volume whose owner reference carries the UID of the App it saw
// deleting, with that volume's UID as a precondition, so a volume of a
// newer App of the same name survives a cache that went back in time.
func ChecksVolumeOwner() model.Controller { return appCleanup("checks-volume-owner", true, 0) }

// SetupSteps is how many status writes DeletesByNameAfterSetup and
// ChecksVolumeOwnerAfterSetup make to set up an App before they create
// its volumes.
const SetupSteps = 50

// DeletesByNameAfterSetup is DeletesByName with a long setup: before it
// creates a new App's volumes it sets the App up in SetupSteps status
// writes (status.setup counts them), as an operator that provisions,
// registers and configures in steps does. A recreated App's volumes then
// exist only more than SetupSteps resourceVersions after the old App's
// deletion timestamp, so the stale read that makes it delete them by name
// needs a time travel more than 48 versions back: a real operator's
// stale-state bug needed 52 to 64. A time travel of at most 12 versions,
// the earlier draw, never finds it (docs/design.md, section "Time
// travel"). ChecksVolumeOwnerAfterSetup is the fix.
func DeletesByNameAfterSetup() model.Controller {
	return appCleanup("deletes-by-name-after-setup", false, SetupSteps)
}

// ChecksVolumeOwnerAfterSetup is DeletesByNameAfterSetup with the checks
// of ChecksVolumeOwner: it deletes only volumes owned by the App it saw,
// with their UID as a precondition.
func ChecksVolumeOwnerAfterSetup() model.Controller {
	return appCleanup("checks-volume-owner-after-setup", true, SetupSteps)
}

// appCleanup is the App controller named name: with checkOwner it checks
// a volume's owner before deleting it, and it sets a new App up in setup
// status writes before it creates the App's volumes.
func appCleanup(name string, checkOwner bool, setup int64) model.Controller {
	return model.Controller{
		Name: name,
		For:  AppKind,
		Owns: []string{VolumeKind},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				app, err := c.Get(AppKind, req.Namespace, req.Name)
				if model.IsNotFound(err) {
					return model.Result{}, nil
				}
				if err != nil {
					return model.Result{}, err
				}
				if app.Deleting() {
					return model.Result{}, cleanUp(c, app, checkOwner)
				}
				return model.Result{}, provision(c, app, setup)
			})
		},
		Goal: VolumesOfLiveApps,
	}
}

// provision puts the finalizer on app, sets it up in setup status
// writes, and creates its missing volumes.
func provision(c model.Client, app *model.Object, setup int64) error {
	if !slices.Contains(app.Finalizers, CleanupFinalizer) {
		app.Finalizers = append(app.Finalizers, CleanupFinalizer)
		if err := c.Update(app); err != nil {
			return err
		}
	}
	for step := app.Status.Int("setup"); step < setup; step++ {
		app.Status.Set("setup", step+1)
		if err := c.UpdateStatus(app); err != nil {
			return err
		}
	}
	for i := range app.Spec.Int("volumes") {
		_, err := c.Get(VolumeKind, app.Namespace, VolumeName(app.Name, i))
		if err == nil {
			continue
		}
		if !model.IsNotFound(err) {
			return err
		}
		v := &model.Object{Kind: VolumeKind, Namespace: app.Namespace, Name: VolumeName(app.Name, i),
			OwnerReferences: []model.OwnerReference{model.NewOwnerReference(app)}}
		if err := c.Create(v); err != nil {
			return err
		}
	}
	return nil
}

// cleanUp deletes the volumes of a deleted app, then removes its
// finalizer. With checkOwner it deletes only volumes owned by this app,
// each with its UID as a precondition.
func cleanUp(c model.Client, app *model.Object, checkOwner bool) error {
	for i := range app.Spec.Int("volumes") {
		ref := model.Ref{Kind: VolumeKind, Namespace: app.Namespace, Name: VolumeName(app.Name, i)}
		var opts model.DeleteOptions
		if checkOwner {
			v, err := c.Get(VolumeKind, ref.Namespace, ref.Name)
			if model.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			if !ownedBy(v, app.UID) {
				continue // a volume of another App of the same name
			}
			opts.UID = v.UID
		}
		err := c.Delete(ref, opts)
		if checkOwner && model.IsConflict(err) {
			continue // the volume the cache showed is gone; the name is another's
		}
		if err != nil && !model.IsNotFound(err) {
			return err
		}
	}
	app.Finalizers = slices.DeleteFunc(app.Finalizers, func(f string) bool { return f == CleanupFinalizer })
	return c.Update(app)
}

// ownedBy reports whether o has an owner reference to uid.
func ownedBy(o *model.Object, uid model.UID) bool {
	return slices.ContainsFunc(o.OwnerReferences, func(r model.OwnerReference) bool { return r.UID == uid })
}

// VolumesOfLiveApps is the goal of the time-travel pair: every App not
// being deleted has its volumes, each owned by it.
func VolumesOfLiveApps(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, app := range s.List(AppKind, model.ListOptions{}) {
		if app.Deleting() {
			continue
		}
		for i := range app.Spec.Int("volumes") {
			name := VolumeName(app.Name, i)
			switch v := s.Get(VolumeKind, app.Namespace, name); {
			case v == nil:
				out = append(out, model.Unmet{Object: app.Ref(), Message: "has no volume " + name})
			case !ownedBy(v, app.UID):
				out = append(out, model.Unmet{Object: app.Ref(), Message: "does not own volume " + name})
			}
		}
	}
	return out
}

// AppVolumesKept is the invariant that makes the time-travel bug visible.
// Recreating a deleted volume is no repair: the data on it is gone. So
// the App controller named controller must never delete a volume whose
// owner App is live (stored and not being deleted) at that moment. A
// level-triggered controller that wrongly deletes volumes recreates them
// and converges; this safety property does not forgive it. It watches
// every write of c, so call it once per cluster, before the run.
func AppVolumesKept(c *model.Cluster, controller string) *VolumesKept {
	k := &VolumesKept{}
	c.OnWrite(func(w model.Write) {
		if k.lost != nil || w.Caller != controller || w.Ref().Kind != VolumeKind || w.New != nil {
			return
		}
		for _, r := range w.Old.OwnerReferences {
			owner := c.Server().Peek(model.Ref{Kind: AppKind, Namespace: w.Old.Namespace, Name: r.Name})
			if r.Kind == AppKind && owner != nil && owner.UID == r.UID && !owner.Deleting() {
				k.lost = fmt.Errorf("%s deleted %s (%s) of the live App %s (%s): its data is lost", controller, w.Ref(), w.Old.UID, owner.Ref().Key(), owner.UID)
			}
		}
	})
	return k
}

// VolumesKept is AppVolumesKept's monitor: what it remembers is the
// first volume of a live App it saw deleted.
type VolumesKept struct{ lost error }

// Check reports the lost volume, if any.
func (k *VolumesKept) Check(model.State) error { return k.lost }

// Fingerprint writes what the monitor remembers (model.Fingerprinter).
func (k *VolumesKept) Fingerprint(h hash.Hash64) {
	if k.lost != nil {
		_, _ = h.Write([]byte("lost " + k.lost.Error()))
	}
}
