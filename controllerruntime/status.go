package controllerruntime

import (
	"context"

	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// statusCheck answers NotFound, as the API server does, for the status
// of a kind that has none.
func (cl *modelClient) statusCheck(obj client.Object) error {
	kind, err := cl.conv.Kind(obj)
	if err != nil {
		return err
	}
	if !cl.conv.HasStatus(kind) || cl.noStatus[kind] {
		gvk, _ := cl.conv.GVK(kind)
		return cl.apiError(&model.StatusError{Reason: model.ReasonNotFound, Message: kind + " has no status"}, gvk, obj.GetName())
	}
	return nil
}

// statusWriter writes the status subresource.
type statusWriter struct{ cl *modelClient }

// Create is for subresources created from an object (eviction, token);
// status has none.
func (s statusWriter) Create(context.Context, client.Object, client.Object, ...client.SubResourceCreateOption) error {
	return unsupported("creating a status")
}

// Update writes obj's status, with obj's resourceVersion as precondition
// when it has one; on success obj holds what the server stored.
func (s statusWriter) Update(_ context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	uo := (&client.SubResourceUpdateOptions{}).ApplyOptions(opts)
	if len(uo.DryRun) > 0 {
		return unsupported("dry run")
	}
	if err := s.cl.statusCheck(obj); err != nil {
		return err
	}
	if err := s.cl.requireResourceVersion(obj, model.VerbUpdateStatus); err != nil {
		return err
	}
	return s.cl.writeRecorded(obj, obj, uo.FieldManager, true, func(mo *model.Object) error { return s.cl.w.UpdateStatus(mo) })
}

// Patch patches the stored object and writes its status; see
// modelClient.Patch.
func (s statusWriter) Patch(_ context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	po := (&client.SubResourcePatchOptions{}).ApplyOptions(opts)
	if len(po.DryRun) > 0 {
		return unsupported("dry run")
	}
	if err := s.cl.statusCheck(obj); err != nil {
		return err
	}
	return s.cl.patch(obj, patch, &po.PatchOptions, true)
}

// Apply is server-side apply to the status subresource; see
// modelClient.Apply.
func (s statusWriter) Apply(_ context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	ao := (&client.SubResourceApplyOptions{}).ApplyOpts(opts)
	if len(ao.DryRun) > 0 {
		return unsupported("dry run")
	}
	return s.cl.applyConfiguration(obj, &ao.ApplyOptions, true)
}

// subResourceClient serves the status subresource and refuses others.
type subResourceClient struct {
	cl   *modelClient
	name string
}

func (s subResourceClient) ok() error {
	if s.name != "status" {
		return unsupported("subresource " + s.name)
	}
	return nil
}

// Get reads obj, status included.
func (s subResourceClient) Get(ctx context.Context, obj, sub client.Object, _ ...client.SubResourceGetOption) error {
	if err := s.ok(); err != nil {
		return err
	}
	return s.cl.Get(ctx, client.ObjectKeyFromObject(obj), sub)
}

// Create refuses: see statusWriter.Create.
func (s subResourceClient) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	if err := s.ok(); err != nil {
		return err
	}
	return statusWriter{s.cl}.Create(ctx, obj, sub, opts...)
}

// Update writes the status.
func (s subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if err := s.ok(); err != nil {
		return err
	}
	return statusWriter{s.cl}.Update(ctx, obj, opts...)
}

// Patch patches the status.
func (s subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := s.ok(); err != nil {
		return err
	}
	return statusWriter{s.cl}.Patch(ctx, obj, patch, opts...)
}

// Apply refuses: see statusWriter.Apply.
func (s subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return statusWriter{s.cl}.Apply(ctx, obj, opts...)
}
