package suite

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProcessCPUIsRead: on the systems the measurements run on, the
// process's CPU time reads above zero, so runs per CPU-second and the
// exploration's CPU column are real figures.
func TestProcessCPUIsRead(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no getrusage here")
	}
	assert.Positive(t, processCPU())
}
