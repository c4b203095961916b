package quiettb_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/converge-sim/converge/internal/quiettb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// flagValue is the current value of the flag name.
func flagValue(t *testing.T, name string) string {
	t.Helper()
	f := flag.Lookup(name)
	require.NotNil(t, f, name)
	return f.Value.String()
}

// firstDraw is the first value a check draws from seed, and whether the
// check failed (it fails on every value).
func firstDraw(setSeed func(uint64), seed uint64) (int, bool) {
	setSeed(seed)
	drawn := -1
	tb := &quiettb.TB{}
	rapid.Check(tb, func(t *rapid.T) {
		v := rapid.IntRange(0, 1<<30).Draw(t, "v")
		if drawn < 0 {
			drawn = v
		}
		t.Fatalf("always")
	})
	return drawn, tb.Failed()
}

// TestFixedSeedsFixesTheSeedAndRestoresTheFlags: inside a test that calls
// FixedSeeds, the same seed draws the same first value and another seed
// another, a failing check writes no fail file, and once the test is over
// both flags are back to what they were.
func TestFixedSeedsFixesTheSeedAndRestoresTheFlags(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, flag.Set("rapid.nofailfile", "false"))
	require.NoError(t, flag.Set("rapid.seed", "0"))
	t.Cleanup(func() {
		_ = flag.Set("rapid.nofailfile", "false")
		_ = flag.Set("rapid.seed", "0")
	})

	t.Run("fixed", func(t *testing.T) {
		setSeed := quiettb.FixedSeeds(t)
		assert.Equal(t, "true", flagValue(t, "rapid.nofailfile"))
		a, failed := firstDraw(setSeed, 7)
		require.True(t, failed)
		b, _ := firstDraw(setSeed, 7)
		c, _ := firstDraw(setSeed, 8)
		assert.Equal(t, "8", flagValue(t, "rapid.seed"))
		assert.Equal(t, a, b, "seed 7 twice")
		assert.NotEqual(t, a, c, "seeds 7 and 8")
	})
	assert.Equal(t, "false", flagValue(t, "rapid.nofailfile"))
	assert.Equal(t, "0", flagValue(t, "rapid.seed"))
	_, err := os.Stat(filepath.Join(dir, "testdata"))
	assert.True(t, os.IsNotExist(err), "a fail file was written: %v", err)
}
