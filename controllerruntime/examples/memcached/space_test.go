package memcached_test

import (
	"path/filepath"
	"runtime"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestADeclaredSpaceFindsThePortBug: a user who cares about the port only
// declares it (crt.InputsOptions.Gen): the port among two values, one of
// them memcached's usual 11211, and the size pinned to 2. Every
// transition is then in that space, and the bug that the port never
// reaches the Deployment is found with a witness a user would write
// ({containerPort: 8080, size: 2}), where the whole schema's shrinks to
// port 1 and size 0 (TestTheSampleNeverPropagatesAPortChange).
func TestADeclaredSpaceFindsThePortBug(t *testing.T) {
	conv := converter(t)
	_, file, _, _ := runtime.Caller(0)
	crds, err := crd.Load(filepath.Join(filepath.Dir(file), "config", "crd", "bases"))
	require.NoError(t, err)
	in, err := crt.Inputs(crds, conv, memcached.New("default", "cache", 2), crt.InputsOptions{Gen: crd.GenOptions{
		Fields: []string{"spec.containerPort"},
		Pin:    map[string]any{"spec.size": 2},
		OneOf:  map[string][]any{"spec.containerPort": {11211, 8080}},
	}})
	require.NoError(t, err)
	sc := memcached.Scenario("memcached-port", conv, memcached.Options{})
	sc.Inputs = in
	res := search(t, sc, faults.Mix{})
	cx := res.Counterexample
	require.NotNil(t, cx, "the port change is never propagated")
	assert.Equal(t, properties.HistoryDependent, cx.Failure.Verdict)
	require.Len(t, cx.Inputs, 1, "one transition")
	assert.Equal(t, "{containerPort: 8080, size: 2}", cx.Inputs[0].String())
	assert.Contains(t, cx.Report(), "Deployment default/cache spec.template.spec.containers[name=memcached].ports[containerPort=11211,protocol=TCP].containerPort: 11211 after the transitions")
	t.Logf("found after %d runs:\n%s", res.Runs, cx.Report())
}
