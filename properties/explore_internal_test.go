package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSeenStateCoversOnlyWithAsMuchLeft: a state explored with some
// decisions and deviations left covers a later visit only when that visit
// has no more of either left; a state reached first off the canonical
// schedule and again closer to it must be explored again.
func TestSeenStateCoversOnlyWithAsMuchLeft(t *testing.T) {
	e := &explorer{}
	seen := seenState{left: 4, devLeft: 1}
	assert.True(t, e.covers(seen, 4, 1, nil))
	assert.True(t, e.covers(seen, 3, 1, nil))
	assert.True(t, e.covers(seen, 4, 0, nil))
	assert.False(t, e.covers(seen, 4, 2, nil), "more deviations left")
	assert.False(t, e.covers(seen, 5, 1, nil), "more decisions left")
}
