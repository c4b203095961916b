package statefulset

import (
	"fmt"
	"strings"

	"github.com/converge-sim/converge/model"
)

// mutable are the spec fields of a StatefulSet an update may change, as
// Kubernetes' validation lists them; the rest, volumeClaimTemplates,
// selector, serviceName and podManagementPolicy among them, are fixed at
// creation.
var mutable = []string{"replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}

// forbidden is Kubernetes' message for an update of a fixed field.
const forbidden = "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', " +
	"'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"

// Install sets up the server of c for StatefulSets: Validate joins its
// admission chain. Call it once per cluster, beside the controller.
func Install(c *model.Cluster) { c.Server().AddAdmission(Validate) }

// Validate is the API server's validation of a StatefulSet update, for
// model.Server.AddAdmission: it rejects, as Invalid, an update that changes
// anything in the spec but the mutable fields. An operator that wants
// bigger volumes must patch the claims, or delete the set (orphaning its
// pods) and create it again.
//
// An empty object or list is no change: a path that ends in the
// controllerruntime adapter's marker of one ("updateStrategy{}",
// "volumeClaimTemplates[0].spec.resources{}", "ports[]") is ignored on
// both sides, as the real API server's semantic equality cannot tell an
// empty struct, list or map from an absent one once defaulted.
func Validate(_ string, verb model.Verb, old, obj *model.Object) error {
	if verb != model.VerbUpdate || obj.Kind != Kind {
		return nil
	}
	if equalFixed(old.Spec, obj.Spec) {
		return nil
	}
	return &model.StatusError{
		Reason:  model.ReasonInvalid,
		Message: fmt.Sprintf("%s is invalid: spec: %s", obj.Ref(), forbidden),
		Causes:  []model.Cause{{Type: "FieldValueForbidden", Field: "spec", Message: forbidden}},
	}
}

// equalFixed reports whether a and b hold the same fields, their mutable
// ones and empty objects and lists aside, without building either without
// them.
func equalFixed(a, b model.Fields) bool {
	fixed := 0
	for p, v := range a.All() {
		if ignored(p) {
			continue
		}
		fixed++
		if w, ok := b.Get(p); !ok || w != v {
			return false
		}
	}
	for p := range b.All() {
		if !ignored(p) {
			fixed--
		}
	}
	return fixed == 0
}

// ignored reports whether a spec path is left out of the comparison: it
// is, or is under, a mutable field, or it is an empty object or list.
func ignored(p string) bool {
	if strings.HasSuffix(p, "{}") || strings.HasSuffix(p, "[]") {
		return true
	}
	for _, m := range mutable {
		if rest, ok := strings.CutPrefix(p, m); ok && (rest == "" || rest[0] == '.' || rest[0] == '[' || rest[0] == '{') {
			return true
		}
	}
	return false
}
