package controllerruntime

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// handleHolder keeps every handle an operator builds from mgr.GetConfig(),
// and one count of its own.
type handleHolder struct {
	Config    *rest.Config
	HTTP      *http.Client
	Clientset kubernetes.Interface
	Core      corev1client.CoreV1Interface
	Dynamic   dynamic.Interface
	Discovery discovery.DiscoveryInterface
	Metadata  metadata.Interface
	Client    client.Client
	count     int
}

// TestHandlesAreStateless: a reconciler holding the handles built from the
// model's config (whose WrapTransport is a closure the walk cannot see
// into) is walked whole, and its own memory still counts.
func TestHandlesAreStateless(t *testing.T) {
	cfg := restConfig(&restTransport{})
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	meta, err := metadata.NewForConfig(cfg)
	require.NoError(t, err)
	cl, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	h := &handleHolder{Config: cfg, HTTP: hc, Clientset: cs, Core: cs.CoreV1(), Dynamic: dyn, Discovery: disc, Metadata: meta, Client: cl}
	one := fingerprint(t, h)
	h.count = 1
	assert.NotEqual(t, one, fingerprint(t, h), "its own memory counts")
}
