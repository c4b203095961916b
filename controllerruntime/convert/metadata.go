package convert

import (
	"fmt"

	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MetadataFromModel overwrites into, a metav1.PartialObjectMetadata whose
// apiVersion and kind name mo's kind, with mo's metadata alone: a
// metadata-only read, as controller-runtime's metadata client and
// informers make one. The spec and status are not decoded, so it serves
// kinds with and without a Go type alike. into keeps its apiVersion and
// kind; a kind that does not match leaves into as it was.
func (c *Converter) MetadataFromModel(mo *model.Object, into *metav1.PartialObjectMetadata) error {
	kind, err := c.Kind(into)
	if err != nil {
		return err
	}
	if kind != mo.Kind {
		return fmt.Errorf("cannot convert a %s into the metadata of a %s", mo.Kind, kind)
	}
	*into = metav1.PartialObjectMetadata{}
	c.metaFromModel(mo, into)
	into.SetGroupVersionKind(c.kinds[kind])
	return nil
}
