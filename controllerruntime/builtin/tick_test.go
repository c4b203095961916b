package builtin_test

import (
	"testing"
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// TestTheKubeletRequeuesInTicks: the kubelet's waits (a container's start,
// a crash-looping container's backoff) are in ticks, so it reconciles a
// pod as often at a tick of 10 s as at one of a second; it used to turn
// ticks into seconds and, at 10 s a tick, requeue every tick.
func TestTheKubeletRequeuesInTicks(t *testing.T) {
	reconciles := func(tick time.Duration) int {
		conv, err := convert.New(clientgoscheme.Scheme, convert.Options{Tick: tick})
		require.NoError(t, err)
		out, _, err := properties.Replay(worldScenario(conv, false, deployment("web", 1, true)), nil, nil, properties.RunOptions{})
		require.NoError(t, err)
		require.Nil(t, out.Failure)
		n := 0
		for _, r := range out.Cluster.Trace().Records {
			if r.Actor == "kubelet" && r.Kind == model.ActReconcile {
				n++
			}
		}
		return n
	}
	second := reconciles(time.Second)
	assert.Equal(t, second, reconciles(10*time.Second), "the kubelet reconciles a crash-looping pod as often whatever a tick lasts")
}
