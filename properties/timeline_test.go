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

// TestFailingTestsShareOneTimelineDirectory: the pages of all the
// failing tests of one test binary run go into one directory, made at the
// first failure and named in its log (issue 37, item 13: 26 directories
// after one benchmark run). The same test failing twice (-test.count=2)
// writes two pages.
func TestFailingTestsShareOneTimelineDirectory(t *testing.T) {
	tmp := t.TempDir()
	out := failingCheckOutput(t, []string{"-test.count=2"}, "TMPDIR="+tmp)
	dirs, err := filepath.Glob(filepath.Join(tmp, "converge-timeline-*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1, "one directory for the run")
	pages := regexp.MustCompile(`timeline of the failing run: (\S+\.html)`).FindAllStringSubmatch(out, -1)
	require.Len(t, pages, 2, out)
	assert.Equal(t, filepath.Join(dirs[0], "TestFailingCheckHelper.html"), pages[0][1])
	assert.Equal(t, filepath.Join(dirs[0], "TestFailingCheckHelper-2.html"), pages[1][1])
	for _, p := range pages {
		assertFailingPage(t, p[1])
	}
	assert.Equal(t, 1, strings.Count(out, "the pages of every failing test of this run go to "+dirs[0]), "the first failure names the directory, once")
}

// TestTimelinePagesTurnOff: CONVERGE_TIMELINE=off writes no page and makes
// no directory; the test fails with its report all the same.
func TestTimelinePagesTurnOff(t *testing.T) {
	tmp := t.TempDir()
	out := failingCheckOutput(t, nil, "TMPDIR="+tmp, properties.TimelineEnv+"=off")
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries)
	assert.NotContains(t, out, "timeline of the failing run")
	assert.Contains(t, out, "converges violated (goal-unmet)")
}

// runFailingCheck runs TestFailingCheckHelper in a subprocess, with env
// added to an environment without $CONVERGE_TIMELINE_DIR, and returns the
// path of the page it printed.
func runFailingCheck(t *testing.T, env ...string) string {
	t.Helper()
	out := failingCheckOutput(t, nil, env...)
	m := regexp.MustCompile(`timeline of the failing run: (\S+\.html)`).FindStringSubmatch(out)
	require.NotNil(t, m, "the failing test prints the page's path:\n%s", out)
	return m[1]
}

// failingCheckOutput runs TestFailingCheckHelper in a subprocess with
// args, and env added to an environment without the timeline variables,
// and returns its output.
func failingCheckOutput(t *testing.T, args []string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestFailingCheckHelper$", "-test.v", "-rapid.nofailfile", "-rapid.seed=3"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, properties.TimelineDirEnv+"=") && !strings.HasPrefix(kv, properties.TimelineEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, envFailingCheck+"=1")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the helper test fails:\n%s", out)
	return string(out)
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
