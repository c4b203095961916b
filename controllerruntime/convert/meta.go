package convert

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Time converts virtual time to a timestamp.
func (c *Converter) Time(t model.Time) metav1.Time {
	return metav1.NewTime(c.epoch.Add(time.Duration(t) * c.tick))
}

// ModelTime converts a timestamp to virtual time, rounding down.
func (c *Converter) ModelTime(t metav1.Time) model.Time {
	return model.Time(t.Sub(c.epoch) / c.tick)
}

// Ticks converts a duration to virtual ticks, rounding up, so that a
// positive duration is at least one tick.
func (c *Converter) Ticks(d time.Duration) model.Time {
	if d <= 0 {
		return 0
	}
	return model.Time((d + c.tick - 1) / c.tick)
}

// Tick returns the wall-clock length of one virtual tick.
func (c *Converter) Tick() time.Duration { return c.tick }

// metaToModel copies obj's metadata into mo.
func (c *Converter) metaToModel(obj metav1.Object, mo *model.Object) error {
	mo.Namespace = obj.GetNamespace()
	mo.Name = obj.GetName()
	mo.GenerateName = obj.GetGenerateName()
	mo.UID = model.UID(obj.GetUID())
	if rv := obj.GetResourceVersion(); rv != "" {
		n, err := strconv.ParseUint(rv, 10, 64)
		if err != nil {
			return fmt.Errorf("resourceVersion %q is not a resourceVersion this server issued", rv)
		}
		mo.ResourceVersion = n
	}
	mo.Generation = obj.GetGeneration()
	if ct := obj.GetCreationTimestamp(); !ct.IsZero() {
		mo.CreationTimestamp = c.ModelTime(ct)
	}
	if dt := obj.GetDeletionTimestamp(); dt != nil {
		t := c.ModelTime(*dt)
		mo.DeletionTimestamp = &t
	}
	if fs := obj.GetFinalizers(); len(fs) > 0 {
		mo.Finalizers = slices.Clone(fs)
	}
	labels, err := model.MetadataLabels(obj.GetLabels(), obj.GetAnnotations()) // sorted pairs, built once
	if err != nil {
		return err
	}
	mo.Labels = labels
	for _, r := range obj.GetOwnerReferences() {
		mo.OwnerReferences = append(mo.OwnerReferences, model.OwnerReference{
			Kind:               r.Kind,
			Name:               r.Name,
			UID:                model.UID(r.UID),
			Controller:         r.Controller != nil && *r.Controller,
			BlockOwnerDeletion: r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion,
		})
	}
	return nil
}

// metaFromModel sets obj's metadata from mo.
func (c *Converter) metaFromModel(mo *model.Object, obj metav1.Object) {
	obj.SetNamespace(mo.Namespace)
	obj.SetName(mo.Name)
	obj.SetGenerateName(mo.GenerateName)
	obj.SetUID(types.UID(mo.UID))
	if mo.ResourceVersion != 0 {
		obj.SetResourceVersion(strconv.FormatUint(mo.ResourceVersion, 10))
	}
	obj.SetGeneration(mo.Generation)
	if mo.UID != "" {
		obj.SetCreationTimestamp(c.Time(mo.CreationTimestamp))
	}
	if mo.DeletionTimestamp != nil {
		t := c.Time(*mo.DeletionTimestamp)
		obj.SetDeletionTimestamp(&t)
	}
	if len(mo.Finalizers) > 0 {
		obj.SetFinalizers(append([]string(nil), mo.Finalizers...))
	}
	var labels, annotations map[string]string
	for k, v := range mo.Labels.All() {
		if name, ok := strings.CutPrefix(k, model.AnnotationLabelPrefix); ok {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[name] = v
			continue
		}
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
	if len(mo.OwnerReferences) == 0 {
		return
	}
	refs := make([]metav1.OwnerReference, len(mo.OwnerReferences))
	for i, r := range mo.OwnerReferences {
		refs[i] = metav1.OwnerReference{Kind: r.Kind, Name: r.Name, UID: types.UID(r.UID)}
		if gvk, ok := c.kinds[r.Kind]; ok {
			refs[i].APIVersion = gvk.GroupVersion().String()
		}
		if r.Controller {
			refs[i].Controller = new(true)
		}
		if r.BlockOwnerDeletion {
			refs[i].BlockOwnerDeletion = new(true)
		}
	}
	obj.SetOwnerReferences(refs)
}
