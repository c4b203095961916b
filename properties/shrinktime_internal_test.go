package properties

import (
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShrinkTimeBoundsShrinking: SearchOptions.ShrinkTime sets rapid's
// shrink time limit for the search, and the limit before it is restored
// after; without it, shrinking is unlimited.
func TestShrinkTimeBoundsShrinking(t *testing.T) {
	f := flag.Lookup(shrinkTimeFlag)
	require.NotNil(t, f)
	before := f.Value.String()
	restore, err := setRapidFlags(SearchOptions{Seed: 1, ShrinkTime: 5 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, "5s", f.Value.String())
	restore()
	assert.Equal(t, before, f.Value.String())

	restore, err = setRapidFlags(SearchOptions{Seed: 1})
	require.NoError(t, err)
	unlimited, err := time.ParseDuration(unlimitedShrink)
	require.NoError(t, err)
	assert.Equal(t, unlimited.String(), f.Value.String())
	restore()
}
