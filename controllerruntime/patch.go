package controllerruntime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/converge-sim/converge/model"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Patch applies a JSON merge patch, strategic merge patch or JSON patch to
// the object as the API server has it now, and writes the result with
// that version's resourceVersion as precondition, so it cannot conflict
// unless the patch itself carries a resourceVersion (as
// client.MergeFromWithOptimisticLock does). On success obj holds the
// stored result. A JSON merge patch of a typed kind is applied to the
// stored object's body without encoding it (convert.Converter.MergePatch,
// docs/design.md "Patches"), with the result and errors of the path
// through JSON the other patch types take.
func (cl *modelClient) Patch(_ context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	po := (&client.PatchOptions{}).ApplyOptions(opts)
	if len(po.DryRun) > 0 {
		return unsupported("dry run")
	}
	return cl.patch(obj, patch, po, false)
}

// patch applies patch to obj's stored version and writes the metadata and
// spec, or with status set, the status.
func (cl *modelClient) patch(obj client.Object, patch client.Patch, po *client.PatchOptions, status bool) error {
	if cl.w == nil {
		return errReadOnly
	}
	mo, gvk, err := cl.named(obj)
	if err != nil {
		return err
	}
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	if patch.Type() == types.ApplyPatchType {
		return cl.apply(mo.Kind, mo.Namespace, mo.Name, data, po.FieldManager, po.Force != nil && *po.Force, status, obj)
	}
	cur, err := cl.live.Get(mo.Kind, mo.Namespace, mo.Name)
	if err != nil {
		return cl.apiError(err, gvk, mo.Name)
	}
	var next client.Object
	if fastMergePatch && patch.Type() == types.MergePatchType {
		// Where it declines, the general path gives the result or the
		// error (an error of newObject's included).
		if n, err := cl.newObject(mo.Kind, obj); err == nil && cl.conv.MergePatch(cur, data, n) {
			next = n
		}
	}
	if next == nil {
		if next, err = cl.patchGeneral(cur, mo, patch.Type(), data, obj); err != nil {
			return err
		}
	}
	if next.GetName() != mo.Name || next.GetNamespace() != cur.Namespace {
		return apierrors.NewBadRequest("a patch cannot change an object's name or namespace")
	}
	write := func(o *model.Object) error { return cl.w.Update(o) }
	if status {
		write = func(o *model.Object) error { return cl.w.UpdateStatus(o) }
	}
	return cl.writeRecorded(next, obj, po.FieldManager, status, write)
}

// fastMergePatch is false only in TestFastPathsGiveTheSameTraces and the
// tests that compare the two paths: a JSON merge patch is then applied
// through JSON as the other patch types are, rather than to the stored
// object's body by convert.Converter.MergePatch (docs/design.md,
// "Patches").
var fastMergePatch = true

// patchGeneral applies a patch of type pt through the stored object's
// JSON, cur's: encoded from its typed (or unstructured) form, patched,
// and decoded into a new object of the caller's form.
func (cl *modelClient) patchGeneral(cur, mo *model.Object, pt types.PatchType, data []byte, obj client.Object) (client.Object, error) {
	// The base is typed where the kind has a Go type, for a strategic
	// merge patch's merge keys; the result takes the caller's form.
	base, err := cl.patchBase(cur)
	if err != nil {
		return nil, err
	}
	patched, err := applyPatch(base, pt, data)
	if errors.Is(err, errStrategicUntyped) {
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason: metav1.StatusReasonUnsupportedMediaType, Message: err.Error()}}
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	next, err := cl.newObject(mo.Kind, obj)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(patched, next); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the patched %s does not decode: %v", mo.Ref(), err))
	}
	return next, nil
}

// patchBase returns the typed (or, for a kind without a Go type,
// unstructured) form of cur that a patch is applied to. applyPatch only
// reads it (it marshals it, and a strategic merge patch reads merge keys
// from its type), so the memo's own decode of cur serves when it has one,
// uncopied; otherwise a fresh decode.
func (cl *modelClient) patchBase(cur *model.Object) (client.Object, error) {
	base, err := cl.conv.New(cur.Kind)
	if err != nil {
		return nil, err
	}
	if cl.versions == nil && cl.memo != nil && cur.UID != "" && cur.ResourceVersion != 0 {
		_, u := base.(runtime.Unstructured)
		if kept := cl.memo.peek(cur.UID, cur.ResourceVersion, u); kept != nil && reflect.TypeOf(kept) == reflect.TypeOf(base) {
			return kept, nil
		}
	}
	if err := cl.fromModel(cur, base); err != nil {
		return nil, err
	}
	return base, nil
}

// errStrategicUntyped is the API server's answer to a strategic merge
// patch of a custom resource: it has no Go type to read merge keys from.
var errStrategicUntyped = errors.New("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")

// applyPatch applies data, a patch of type pt, to base's JSON.
func applyPatch(base client.Object, pt types.PatchType, data []byte) ([]byte, error) {
	orig, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	switch pt {
	case types.MergePatchType:
		return jsonpatch.MergePatch(orig, data)
	case types.StrategicMergePatchType:
		if _, untyped := base.(runtime.Unstructured); untyped {
			return nil, errStrategicUntyped
		}
		return strategicpatch.StrategicMergePatch(orig, data, base)
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(data)
		if err != nil {
			return nil, err
		}
		return p.Apply(orig)
	}
	return nil, fmt.Errorf("patch type %s is not supported by converge's model API server", pt)
}
