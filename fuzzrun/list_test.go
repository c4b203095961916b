package fuzzrun_test

import (
	"regexp"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListShowsEachFaultKindsClassAndWhy: -list says which kinds are
// faithful and which adversarial, and why.
func TestListShowsEachFaultKindsClassAndWhy(t *testing.T) {
	code, out, _ := run("-list")
	require.Equal(t, fuzzrun.ExitOK, code)
	assert.Regexp(t, regexp.MustCompile(`(?m)^  drop +adversarial +an event's notification`), out)
	assert.Regexp(t, regexp.MustCompile(`(?m)^  apierror +faithful +a controller's next writes fail`), out)
	assert.Regexp(t, regexp.MustCompile(`(?m)^ +why: client-go never loses a notification`), out)
	assert.Regexp(t, regexp.MustCompile(`(?m)^  timetravel +faithful +a controller restarts and lists from a server K resourceVersions behind`), out)
	assert.Regexp(t, regexp.MustCompile(`(?m)^ +why: a restarted informer's first list may be served by a lagging API server's watch cache`), out)
}
