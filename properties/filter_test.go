package properties_test

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
)

// TestDiagnosisNamesAFilteredNotification: a controller that maps its pods'
// events to no key is told of its pods and enqueues nothing; the
// diagnosis says so.
func TestDiagnosisNamesAFilteredNotification(t *testing.T) {
	sc := properties.Scenario{Name: "unmapped-pods", Build: broken.QuietWorld(broken.UnmappedPods()), Edits: podDeletes}
	cx := requireFails(t, sc, faults.Mix{faults.KindEdit}, properties.GoalUnmet, 3)
	diagnosis := strings.Join(cx.Failure.Diagnosis, "\n")
	assert.Regexp(t, `the filter of unmapped-pods dropped (Added|Modified|Deleted) Pod default/web-`, diagnosis)
	assert.Contains(t, diagnosis, "it enqueued no key")
}
