package volume

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// Options configures the volume controller.
type Options struct {
	// Resync is the informer resync period; zero turns resync off.
	Resync model.Time
}

// Controller returns the volume controller, named "volume": the binder and
// resizer of claims, one status write per reconcile.
//
//   - A Pending claim whose StorageClass exists is bound: phase Bound, its
//     capacity its request (dynamic provisioning of exactly the size
//     asked). A claim of no class, or of a class that does not exist,
//     stays Pending, as in Kubernetes.
//   - A bound claim whose request exceeds its capacity is resized in two
//     steps: first the volume grows (status.allocatedResources.storage is
//     the request, with the FileSystemResizePending condition), then the
//     file system (capacity becomes the allocated size, the condition
//     goes). Each step's own status event brings the claim back.
func Controller(opts Options) model.Controller {
	return model.Controller{
		Name:         "volume",
		For:          ClaimKind,
		Watches:      []model.Watch{{Kind: ClassKind, Map: claimsOfClass}},
		ResyncPeriod: opts.Resync,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) { return reconcile(c, req) })
		},
		Goal: Settled,
	}
}

// claimsOfClass maps a StorageClass's events to its claims.
func claimsOfClass(c model.Client, class *model.Object) []model.Request {
	claims, _ := c.PeekList(ClaimKind, model.ListOptions{})
	var out []model.Request
	for _, cl := range claims {
		if cl.Spec.Str(ClassPath) == class.Name {
			out = append(out, model.RequestFor(cl))
		}
	}
	return out
}

func reconcile(c model.Client, req model.Request) (model.Result, error) {
	claim, err := c.Get(ClaimKind, req.Namespace, req.Name)
	if model.IsNotFound(err) {
		return model.Result{}, nil
	}
	if err != nil {
		return model.Result{}, err
	}
	if claim.Deleting() {
		return model.Result{}, nil
	}
	want, err := Request(claim)
	if err != nil {
		return model.Result{}, nil // the goal reports it; no retry mends a spec
	}
	status := next(claim, want, func(name string) bool {
		class, err := c.Peek(ClassKind, "", name)
		return err == nil && class != nil
	})
	if status.Equal(claim.Status) {
		return model.Result{}, nil
	}
	claim.Status = status
	return model.Result{}, c.UpdateStatus(claim)
}

// next returns the claim's status after the next step of binding or
// resizing it to want MiB; classExists says whether a StorageClass exists.
func next(claim *model.Object, want int64, classExists func(string) bool) model.Fields {
	st := claim.Status
	if st.Str("phase") != Bound {
		class := claim.Spec.Str(ClassPath)
		if class == "" || !classExists(class) {
			st.Set("phase", Pending)
			return st
		}
		st.Set("phase", Bound)
		st.Set(CapacityPath, FormatStorage(want))
		return st
	}
	have, _ := Capacity(claim)
	allocated, err := ParseStorage(st.Str(AllocatedPath))
	switch {
	case have >= want && !st.Has(conditionType):
		return st
	case err != nil || allocated < want:
		st.Set(AllocatedPath, FormatStorage(want))
		st.Set(conditionType, ResizePending)
		st.Set(conditionStat, "True")
	default:
		st.Set(CapacityPath, FormatStorage(allocated))
		st.Delete(conditionType)
		st.Delete(conditionStat)
	}
	return st
}

// Settled is the volume controller's goal: every claim is bound, and its
// capacity is its request, no resize pending.
func Settled(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, claim := range s.List(ClaimKind, model.ListOptions{}) {
		if claim.Deleting() {
			continue
		}
		unmet := func(format string, args ...any) {
			out = append(out, model.Unmet{Object: claim.Ref(), Message: fmt.Sprintf(format, args...)})
		}
		want, err := Request(claim)
		if err != nil {
			unmet("%v", err)
			continue
		}
		if phase := claim.Status.Str("phase"); phase != Bound {
			unmet("is %s, not Bound (storageClassName %q)", phase, claim.Spec.Str(ClassPath))
			continue
		}
		have, _ := Capacity(claim)
		if have < want || claim.Status.Has(conditionType) {
			unmet("has capacity %s, requests %s", claim.Status.Str(CapacityPath), FormatStorage(want))
		}
	}
	return out
}
