// Package goal helps the operators' harnesses write their goals.
package goal

import (
	"context"
	"fmt"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Each is a goal over every object of one kind: it lists them into
// list and reports each one for which unmet names what is missing (an
// empty string: nothing).
func Each[T client.Object](ctx context.Context, r client.Reader, list client.ObjectList, unmet func(T) string) []model.Unmet {
	if err := r.List(ctx, list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	var out []model.Unmet
	for _, item := range items {
		obj, ok := item.(T)
		if !ok {
			return []model.Unmet{{Message: fmt.Sprintf("%T holds a %T", list, item)}}
		}
		if msg := unmet(obj); msg != "" {
			out = append(out, crt.Unmet(obj, "%s", msg))
		}
	}
	return out
}
