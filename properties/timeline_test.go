package properties_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envFailingCheck makes TestFailingCheckHelper run: it is a test that
// fails on purpose, run by TestCheckWritesTimeline in a subprocess.
const envFailingCheck = "CONVERGE_TEST_FAILING_CHECK"

func TestFailingCheckHelper(t *testing.T) {
	if os.Getenv(envFailingCheck) == "" {
		t.Skip("run by TestCheckWritesTimeline")
	}
	sc, _ := scenarios.ByName("replicaset-edge")
	properties.Check(t, sc, faults.Mix{faults.KindDrop})
}

// TestCheckWritesTimeline: a test that fails in properties.Check writes the
// timeline page of its minimal failing run into $CONVERGE_TIMELINE_DIR and
// prints the page's path.
func TestCheckWritesTimeline(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailingCheckHelper$", "-test.v", "-rapid.nofailfile", "-rapid.seed=3")
	cmd.Env = append(os.Environ(), envFailingCheck+"=1", properties.TimelineDirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the helper test fails:\n%s", out)
	m := regexp.MustCompile(`timeline of the failing run: (\S+\.html)`).FindSubmatch(out)
	require.NotNil(t, m, "the failing test prints the page's path:\n%s", out)
	path := string(m[1])
	assert.Equal(t, dir, filepath.Dir(path))
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(page), `"Verdict":"goal-unmet"`)
}
