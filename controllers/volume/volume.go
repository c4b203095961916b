// Package volume models PersistentVolumeClaims as operators see them: a
// claim requests storage, a binder binds it (phase Pending → Bound, with
// its capacity), and a resizer grows its capacity after the request grows,
// in two steps as an external resizer and the kubelet do. The API server's
// validation of claims (Admission) refuses what Kubernetes refuses: a
// smaller request, a resize where the claim's StorageClass does not allow
// volume expansion, and any other change of a claim's spec. See "Volumes"
// in docs/design.md for what the model leaves out.
//
// A claim's spec holds, as flat model.Fields paths:
//
//   - "resources.requests.storage", a storage quantity (ParseStorage);
//   - "storageClassName", the StorageClass it is provisioned from: the
//     default class when unset at creation.
//
// Its status holds "phase" ("Pending", then "Bound"), "capacity.storage",
// and during a resize "allocatedResources.storage" and the condition
// "conditions[0].type" = "FileSystemResizePending".
//
// A StorageClass is cluster-scoped; its spec holds "allowVolumeExpansion"
// (a bool) and "provisioner". (In Kubernetes both are top-level fields: the
// model keeps every field of an object in its spec or status.)
package volume

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/model"
)

// Kinds the package reads and writes.
const (
	ClaimKind = "PersistentVolumeClaim"
	ClassKind = "StorageClass"
)

// The phases of a claim.
const (
	Pending = "Pending"
	Bound   = "Bound"
)

// DefaultClassAnnotation is the annotation that, "true" on a StorageClass,
// makes it the class of the claims created without one.
const DefaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// ResizePending is the condition of a claim whose volume has grown and
// whose file system has not yet: its capacity still says the old size.
const ResizePending = "FileSystemResizePending"

// Paths of the fields the package reads and writes.
const (
	RequestPath   = "resources.requests.storage"
	ClassPath     = "storageClassName"
	CapacityPath  = "capacity.storage"
	AllocatedPath = "allocatedResources.storage"
	conditionType = "conditions[0].type"
	conditionStat = "conditions[0].status"
)

// ParseStorage reads a storage quantity, "<n>Mi" or "<n>Gi" with n a
// non-negative decimal integer, and returns it in MiB. Anything else (a
// decimal point, "G", "M", "Ki", an exponent, a bare number) is an error:
// the model keeps one clear representation rather than Kubernetes' whole
// quantity grammar.
func ParseStorage(s string) (int64, error) {
	var unit int64
	num, ok := strings.CutSuffix(s, "Gi")
	if ok {
		unit = 1024
	} else if num, ok = strings.CutSuffix(s, "Mi"); ok {
		unit = 1
	} else {
		return 0, fmt.Errorf("storage quantity %q: want <n>Mi or <n>Gi", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || num[0] == '+' || n > (1<<50)/unit {
		return 0, fmt.Errorf("storage quantity %q: want <n>Mi or <n>Gi, n a non-negative integer", s)
	}
	return n * unit, nil
}

// FormatStorage renders MiB as ParseStorage reads it: "<n>Gi" when whole,
// else "<n>Mi".
func FormatStorage(mib int64) string {
	if mib%1024 == 0 && mib != 0 {
		return strconv.FormatInt(mib/1024, 10) + "Gi"
	}
	return strconv.FormatInt(mib, 10) + "Mi"
}

// Request returns a claim's requested storage in MiB.
func Request(claim *model.Object) (int64, error) {
	v, ok := claim.Spec.Get(RequestPath)
	if !ok {
		return 0, fmt.Errorf("has no %s", RequestPath)
	}
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("has %s %s, not a string quantity", RequestPath, model.FormatValue(v))
	}
	return ParseStorage(s)
}

// Capacity returns a claim's capacity in MiB, and false while it has none
// (it is not bound yet) or it is not a quantity.
func Capacity(claim *model.Object) (int64, bool) {
	n, err := ParseStorage(claim.Status.Str(CapacityPath))
	return n, err == nil && claim.Status.Has(CapacityPath)
}

// NewClass returns a StorageClass; def makes it the default class.
func NewClass(name string, allowExpansion, def bool) *model.Object {
	c := &model.Object{Kind: ClassKind, Name: name, Spec: model.NewFields(model.Values{
		"provisioner": "model.converge/volume", "allowVolumeExpansion": allowExpansion,
	})}
	if def {
		c.Labels = model.NewLabels(map[string]string{model.AnnotationLabelPrefix + DefaultClassAnnotation: "true"})
	}
	return c
}

// NewClaim returns a claim of storage, of class (the default class if "").
func NewClaim(namespace, name, class, storage string) *model.Object {
	spec := model.NewFields(model.Values{RequestPath: storage})
	if class != "" {
		spec.Set(ClassPath, class)
	}
	return &model.Object{Kind: ClaimKind, Namespace: namespace, Name: name, Spec: spec}
}

// Install sets up the server of c for claims and classes: neither kind has
// a generation (Kubernetes sets none on them), and Admission validates
// claims.
func Install(c *model.Cluster) {
	s := c.Server()
	s.SetGenerationRule(ClaimKind, model.GenerationNone)
	s.SetGenerationRule(ClassKind, model.GenerationNone)
	s.AddAdmission(Admission(c.State))
}

// Admission validates claims as Kubernetes' API server does, reading
// StorageClasses from state (the server's current state):
//
//   - on create, the request must be a positive quantity, and a claim
//     without a class gets the default class, if there is one;
//   - on update, the spec is immutable but for the request of a bound
//     claim, which may grow but never shrink, and may grow only when the
//     claim's StorageClass exists and allows volume expansion.
//
// Every rejection is Invalid, with a cause naming the field. (Kubernetes
// returns the storage class refusal from an admission plugin as Forbidden;
// the model keeps Invalid, with its cause.)
func Admission(state func() model.State) model.Admission {
	return func(_ string, verb model.Verb, old, obj *model.Object) error {
		if verb == model.VerbDelete || obj.Kind != ClaimKind {
			return nil
		}
		switch verb {
		case model.VerbCreate:
			return admitCreate(state(), obj)
		case model.VerbUpdate:
			return admitUpdate(state(), old, obj)
		}
		return nil
	}
}

func admitCreate(s model.State, obj *model.Object) error {
	n, err := Request(obj)
	if err != nil {
		return invalid(obj, "FieldValueInvalid", "spec."+RequestPath, err.Error())
	}
	if n <= 0 {
		return invalid(obj, "FieldValueInvalid", "spec."+RequestPath, "must be greater than zero")
	}
	if !obj.Spec.Has(ClassPath) {
		if def := defaultClass(s); def != "" {
			obj.Spec.Set(ClassPath, def)
		}
	}
	obj.Status.Set("phase", Pending)
	return nil
}

// defaultClass names the default StorageClass, the first by name if
// several claim to be, or "".
func defaultClass(s model.State) string {
	for _, c := range s.List(ClassKind, model.ListOptions{}) {
		if c.Labels.Value(model.AnnotationLabelPrefix+DefaultClassAnnotation) == "true" {
			return c.Name
		}
	}
	return ""
}

func admitUpdate(s model.State, old, obj *model.Object) error {
	oldN, oldErr := Request(old)
	newN, err := Request(obj)
	if err != nil {
		return invalid(obj, "FieldValueInvalid", "spec."+RequestPath, err.Error())
	}
	// The spec but for the request must not change; nor the request of a
	// claim that is not bound.
	was, is := old.Spec, obj.Spec
	if old.Status.Str("phase") == Bound {
		was.Delete(RequestPath)
		is.Delete(RequestPath)
	}
	if !was.Equal(is) {
		return invalid(obj, "FieldValueForbidden", "spec",
			"Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims")
	}
	if oldErr != nil || newN == oldN {
		return nil
	}
	if newN < oldN {
		return invalid(obj, "FieldValueForbidden", "spec.resources.requests.storage", "Forbidden: field can not be less than previous value")
	}
	name := old.Spec.Str(ClassPath)
	class := s.Get(ClassKind, "", name)
	if name == "" || class == nil || !class.Spec.Bool("allowVolumeExpansion") {
		return invalid(obj, "FieldValueForbidden", "spec",
			"Forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize")
	}
	return nil
}

// invalid is the Invalid error of one cause.
func invalid(obj *model.Object, typ, field, msg string) error {
	return &model.StatusError{
		Reason:  model.ReasonInvalid,
		Message: fmt.Sprintf("%s is invalid: %s: %s", obj.Ref(), field, msg),
		Causes:  []model.Cause{{Type: typ, Field: field, Message: msg}},
	}
}
