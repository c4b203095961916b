package controllerruntime

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// APIReader returns a reader of the API server itself for a client a
// controller got from Complete, as controller-runtime's
// manager.GetAPIReader: its reads bypass the informer cache.
func APIReader(c client.Client) (client.Reader, error) {
	cl, ok := c.(*modelClient)
	if !ok {
		return nil, fmt.Errorf("%T is not a client of this package", c)
	}
	return &modelClient{env: cl.env, cache: cl.live, live: cl.live}, nil
}
