package classes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryClassHasAFloorEntry: a class added without a measurement, or a
// floor left behind by a class renamed or removed, fails here.
func TestEveryClassHasAFloorEntry(t *testing.T) {
	all, err := All()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, c := range all {
		assert.False(t, names[c.Name], "two classes named %s", c.Name)
		names[c.Name] = true
		_, ok := floors[c.Name]
		assert.True(t, ok, "class %s has no floor entry: measure it (TestClassTable) and list it in floors", c.Name)
	}
	for name := range floors {
		assert.True(t, names[name], "floor of %s, which is no class", name)
	}
}
