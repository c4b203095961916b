package convert

import (
	"fmt"

	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ToUnstructured converts a model object to the unstructured object a
// real API server would hold: apiVersion and kind of the model kind,
// metadata, the spec (or for kinds whose body is not a spec, the body's
// top-level fields) and the status.
func (c *Converter) ToUnstructured(mo *model.Object) (*unstructured.Unstructured, error) {
	gvk, err := c.GVK(mo.Kind)
	if err != nil {
		return nil, err
	}
	body, err := c.body(mo)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: body}
	c.metaFromModel(mo, u)
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// FromUnstructured converts an unstructured object of a kind the converter
// knows to a model object. It reads u's content and leaves u unchanged.
func (c *Converter) FromUnstructured(u *unstructured.Unstructured) (*model.Object, error) {
	gvk := u.GroupVersionKind()
	want, err := c.GVK(gvk.Kind)
	if err != nil {
		return nil, err
	}
	if want != gvk {
		return nil, fmt.Errorf("kind %s stands for %s in this converter, not %s", gvk.Kind, want.GroupVersion(), gvk.GroupVersion())
	}
	content := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		content[k] = v
	}
	return c.bodyToModel(gvk.Kind, u, content)
}
