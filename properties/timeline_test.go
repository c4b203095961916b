package properties_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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
	path := runFailingCheck(t, properties.TimelineDirEnv+"="+dir)
	assert.Equal(t, dir, filepath.Dir(path))
	assertFailingPage(t, path)
}

// TestCheckWritesTimelineToTempDirByDefault: without
// $CONVERGE_TIMELINE_DIR, the page goes into a fresh directory under the
// system's temporary directory ($TMPDIR), which outlives the test (its own
// t.TempDir is removed when it ends), and its path is printed.
func TestCheckWritesTimelineToTempDirByDefault(t *testing.T) {
	tmp := t.TempDir()
	path := runFailingCheck(t, "TMPDIR="+tmp)
	sub := filepath.Dir(path)
	assert.Equal(t, tmp, filepath.Dir(sub), "the page is under $TMPDIR")
	assert.True(t, strings.HasPrefix(filepath.Base(sub), "converge-timeline-"), "in a directory of its own: %s", sub)
	assert.Equal(t, "TestFailingCheckHelper.html", filepath.Base(path), "named after the test")
	assertFailingPage(t, path)
}

// runFailingCheck runs TestFailingCheckHelper in a subprocess, with env
// added to an environment without $CONVERGE_TIMELINE_DIR, and returns the
// path of the page it printed.
func runFailingCheck(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailingCheckHelper$", "-test.v", "-rapid.nofailfile", "-rapid.seed=3")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, properties.TimelineDirEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, envFailingCheck+"=1")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the helper test fails:\n%s", out)
	m := regexp.MustCompile(`timeline of the failing run: (\S+\.html)`).FindSubmatch(out)
	require.NotNil(t, m, "the failing test prints the page's path:\n%s", out)
	return string(m[1])
}

// assertFailingPage checks that the page at path, written after the test
// process ended, draws the failure.
func assertFailingPage(t *testing.T, path string) {
	t.Helper()
	page, err := os.ReadFile(path)
	require.NoError(t, err, "the page outlives the test that wrote it")
	assert.Contains(t, string(page), `"Verdict":"goal-unmet"`)
	assert.Contains(t, string(page), "TestFailingCheckHelper: scenario replicaset-edge, faults drop")
}
