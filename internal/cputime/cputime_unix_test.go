//go:build unix

package cputime_test

import (
	"testing"

	"github.com/converge-sim/converge/internal/cputime"
	"github.com/stretchr/testify/assert"
)

// TestProcessCountsWhatTheProcessUsed: a test binary has used CPU by the
// time it runs a test, and the count never goes back.
func TestProcessCountsWhatTheProcessUsed(t *testing.T) {
	first := cputime.Process()
	assert.Positive(t, first)
	assert.GreaterOrEqual(t, cputime.Process(), first)
}
