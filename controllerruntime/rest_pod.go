package controllerruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// LogsFunc answers a pods/log request: the log of a container of a pod
// the API server has. The scenario declares it with ManagerOptions.Logs.
type LogsFunc func(ctx context.Context, pod client.ObjectKey, container string) (string, error)

// serveScale serves the scale subresource of a kind that has one (the
// built-in Deployment, StatefulSet, ReplicaSet and ReplicationController,
// and custom resources whose CRD declares one): get, update and patch of
// an autoscaling/v1 Scale read from and written to the object's paths.
func (t *restTransport) serveScale(ctx context.Context, r *restRequest) (int, any, error) {
	paths := t.kinds.scale(r.gvk.GroupVersion().WithResource(r.resource))
	if paths == nil || r.name == "" {
		return 0, nil, apierrors.NewNotFound(schema.GroupResource{Group: r.gvk.Group, Resource: r.resource + "/scale"}, r.name)
	}
	u := t.object(r)
	if err := t.cl.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: r.name}, u); err != nil {
		return 0, nil, err
	}
	cur, err := scaleOf(u, paths)
	if err != nil {
		return 0, nil, err
	}
	var next autoscalingv1.Scale
	switch r.verb {
	case http.MethodGet:
		return http.StatusOK, cur, nil
	case http.MethodPut:
		if err := json.Unmarshal(r.body, &next); err != nil {
			return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("the Scale does not decode: %v", err))
		}
		if next.Name != r.name {
			return 0, nil, apierrors.NewBadRequest("the name of the Scale (" + next.Name + ") does not match the name on the URL (" + r.name + ")")
		}
		if next.ResourceVersion != "" {
			u.SetResourceVersion(next.ResourceVersion)
		}
	case http.MethodPatch:
		patched, err := applyPatch(cur, types.PatchType(r.contentType), r.body)
		if err != nil {
			return 0, nil, apierrors.NewBadRequest(err.Error())
		}
		if err := json.Unmarshal(patched, &next); err != nil {
			return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("the patched Scale does not decode: %v", err))
		}
		if next.ResourceVersion != cur.ResourceVersion {
			u.SetResourceVersion(next.ResourceVersion)
		}
	default:
		return 0, nil, methodNotAllowed(r)
	}
	if err := unstructured.SetNestedField(u.Object, int64(next.Spec.Replicas), pathFields(paths.SpecReplicasPath)...); err != nil {
		return 0, nil, apierrors.NewInternalError(err)
	}
	if err := t.cl.Update(ctx, u); err != nil {
		return 0, nil, err
	}
	out, err := scaleOf(u, paths)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// scaleOf reads the Scale of u.
func scaleOf(u *unstructured.Unstructured, paths *crd.Scale) (*autoscalingv1.Scale, error) {
	s := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp()},
	}
	spec, found, err := unstructured.NestedInt64(u.Object, pathFields(paths.SpecReplicasPath)...)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if !found && !strings.Contains(u.GetAPIVersion(), ".") {
		spec = 1 // the built-in kinds' default
	}
	s.Spec.Replicas = int32(spec)
	status, _, err := unstructured.NestedInt64(u.Object, pathFields(paths.StatusReplicasPath)...)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	s.Status.Replicas = int32(status)
	if paths.LabelSelectorPath != "" {
		sel, _, _ := unstructured.NestedFieldNoCopy(u.Object, pathFields(paths.LabelSelectorPath)...)
		switch sel := sel.(type) {
		case string:
			s.Status.Selector = sel
		case map[string]any:
			var ls metav1.LabelSelector
			if err := runtimeConvert(sel, &ls); err != nil {
				return nil, apierrors.NewInternalError(err)
			}
			s.Status.Selector = metav1.FormatLabelSelector(&ls)
		}
	}
	return s, nil
}

// runtimeConvert decodes an unstructured map into a typed value.
func runtimeConvert(m map[string]any, into any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// pathFields splits a scale path (".spec.replicas") into its fields.
func pathFields(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// servePod serves the subresources of a pod: eviction through the model's
// eviction API (which respects PodDisruptionBudgets, model.Server.Evict),
// log and exec through the scenario's hooks; attach and port forwarding
// are refused.
func (t *restTransport) servePod(ctx context.Context, r *restRequest) (int, any, error) {
	if r.gvk.Group != "" || r.gvk.Kind != "Pod" || r.name == "" {
		return 0, nil, apierrors.NewNotFound(schema.GroupResource{Group: r.gvk.Group, Resource: r.resource + "/" + r.sub}, r.name)
	}
	key := client.ObjectKey{Namespace: r.namespace, Name: r.name}
	switch r.sub {
	case "eviction":
		if r.verb != http.MethodPost {
			return 0, nil, methodNotAllowed(r)
		}
		return t.evict(r)
	case "log":
		if r.verb != http.MethodGet {
			return 0, nil, methodNotAllowed(r)
		}
		if err := t.cl.Get(ctx, key, t.object(r)); err != nil {
			return 0, nil, err
		}
		container := first(r.query, "container")
		if t.opts.Logs == nil {
			return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("the log of pod %s (container %q) was asked for, and the scenario answers no pods/log: set ManagerOptions.Logs", key, container))
		}
		out, err := t.opts.Logs(ctx, key, container)
		if err != nil {
			return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("the log of pod %s (container %q): %v", key, container, err))
		}
		return http.StatusOK, out, nil
	case "exec":
		if r.verb != http.MethodPost && r.verb != http.MethodGet {
			return 0, nil, methodNotAllowed(r)
		}
		if err := t.cl.Get(ctx, key, t.object(r)); err != nil {
			return 0, nil, err
		}
		return t.exec(ctx, key, r)
	}
	return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("pods/%s of pod %s is not served by converge's model API server", r.sub, key))
}

// evict evicts a pod through the controller's model client.
func (t *restTransport) evict(r *restRequest) (int, any, error) {
	ev, ok := t.cl.w.(interface{ Evict(model.Ref) error })
	if !ok {
		return 0, nil, errReadOnly
	}
	if len(r.body) > 0 {
		var e struct {
			metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(r.body, &e); err != nil {
			return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("the Eviction does not decode: %v", err))
		}
		if e.Name != "" && e.Name != r.name {
			return 0, nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
		}
	}
	ref := model.Ref{Kind: "Pod", Namespace: r.namespace, Name: r.name}
	if err := ev.Evict(ref); err != nil {
		return 0, nil, t.cl.apiError(err, r.gvk, r.name)
	}
	s := success(r)
	return http.StatusCreated, s, nil
}
