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
func Validate(_ string, verb model.Verb, old, obj *model.Object) error {
	if obj.Kind != Kind || verb != model.VerbUpdate {
		return nil
	}
	if fixedFields(old.Spec).Equal(fixedFields(obj.Spec)) {
		return nil
	}
	return &model.StatusError{
		Reason:  model.ReasonInvalid,
		Message: fmt.Sprintf("%s is invalid: spec: %s", obj.Ref(), forbidden),
		Causes:  []model.Cause{{Type: "FieldValueForbidden", Field: "spec", Message: forbidden}},
	}
}

// fixedFields returns spec without its mutable fields.
func fixedFields(spec model.Fields) model.Fields {
	for _, p := range spec.Paths() {
		for _, m := range mutable {
			if p == m || strings.HasPrefix(p, m+".") || strings.HasPrefix(p, m+"[") {
				spec.Delete(p)
				break
			}
		}
	}
	return spec
}
