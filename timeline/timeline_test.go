package timeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/converge-sim/converge/timeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// golden are the counterexamples of scenarios/testdata/diagnosis.
var golden = []struct {
	scenario string
	mix      faults.Mix
	seed     uint64
}{
	{"replicaset-edge", faults.Mix{faults.KindDrop}, 6},
	{"hpa-gitops-fight", faults.Mix{}, 1},
	{"pdb-drain", faults.Mix{}, 1},
}

// pageData is the part of a page's data these tests read.
type pageData struct {
	Title     string
	QuietFrom int
	Violation *struct {
		Verdict string
		Step    int
	}
	Lanes []struct{ Kind, Name string }
	Marks []struct {
		L, S, R, O, E int
		C             string
	}
	Records []struct {
		S    int
		Line string
	}
	Objects []struct {
		Ref string
		V   []struct {
			S    int
			W    int
			Verb string
			F    map[string]string
		}
	}
	Faults []struct {
		Text string
		R    int
	}
	Writers []string
}

func render(t *testing.T, run timeline.Run) (string, pageData) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, timeline.Write(&b, run))
	html := b.String()
	const open = `<script type="application/json" id="data">`
	i := strings.Index(html, open)
	require.GreaterOrEqual(t, i, 0, "the page holds its data")
	rest := html[i+len(open):]
	j := strings.Index(rest, "</script>")
	require.GreaterOrEqual(t, j, 0)
	var d pageData
	require.NoError(t, json.Unmarshal([]byte(rest[:j]), &d))
	return html, d
}

// runs caches the runs of goldenRun: each search runs once per test
// binary (the tests do not run in parallel).
var runs = map[string]timeline.Run{}

func goldenRun(t *testing.T, scenario string, mix faults.Mix, seed uint64) timeline.Run {
	t.Helper()
	key := fmt.Sprintf("%s %s %d", scenario, mix, seed)
	if run, ok := runs[key]; ok {
		return run
	}
	run := searchRun(t, scenario, mix, seed)
	runs[key] = run
	return run
}

func searchRun(t *testing.T, scenario string, mix faults.Mix, seed uint64) timeline.Run {
	t.Helper()
	sc, ok := scenarios.ByName(scenario)
	require.True(t, ok)
	res, err := properties.Search(sc, mix, properties.SearchOptions{Checks: 1, Seed: seed})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample, "seed %d must fail", seed)
	run, err := res.Counterexample.Timeline(sc)
	require.NoError(t, err)
	return run
}

func laneNamed(d pageData, kind, name string) int {
	for i, l := range d.Lanes {
		if l.Kind == kind && l.Name == name {
			return i
		}
	}
	return -1
}

func TestGoldenCounterexamplesRender(t *testing.T) {
	for _, g := range golden {
		t.Run(g.scenario, func(t *testing.T) {
			run := goldenRun(t, g.scenario, g.mix, g.seed)
			html, d := render(t, run)
			assert.NotContains(t, html, "http://", "the page loads nothing from the network")
			assert.NotContains(t, html, "https://")
			require.NotNil(t, d.Violation)
			assert.Equal(t, run.Violation.Step, d.Violation.Step)
			assert.Len(t, d.Records, len(run.Cluster.Trace().Records), "one record per step")
			for _, ctl := range run.Cluster.Controllers() {
				assert.GreaterOrEqual(t, laneNamed(d, "controller", ctl), 0, "a lane for controller %s", ctl)
			}
			for _, inf := range run.Cluster.Informers() {
				assert.GreaterOrEqual(t, laneNamed(d, "informer", inf.Name()), 0, "a lane for informer %s", inf.Name())
			}
			assert.GreaterOrEqual(t, laneNamed(d, "faults", "faults"), 0)
			assert.GreaterOrEqual(t, laneNamed(d, "server", "API server"), 0)
			for _, f := range d.Faults {
				require.GreaterOrEqual(t, f.R, 0, "fault %q links to the step it struck at", f.Text)
				assert.Contains(t, d.Records[f.R].Line, " fault #")
			}
			assert.Len(t, d.Faults, len(run.Schedule))
		})
	}
}

// TestDropAndFaultMarks: in the replicaset-edge counterexample the drop
// fault is a mark on the faults lane, and the delivery it dropped (step 17)
// a drop mark on the informer's lane, linked to the deleted pod.
func TestDropAndFaultMarks(t *testing.T) {
	_, d := render(t, goldenRun(t, "replicaset-edge", faults.Mix{faults.KindDrop}, 6))
	inf := laneNamed(d, "informer", "replicaset-edge/Pod")
	require.GreaterOrEqual(t, inf, 0)
	var drop, fault bool
	for _, m := range d.Marks {
		if m.L == inf && m.S == 17 && strings.Contains(m.C, "drop") {
			drop = true
			require.GreaterOrEqual(t, m.O, 0)
			assert.Equal(t, "Pod default/web-2sql8", d.Objects[m.O].Ref)
		}
		if d.Lanes[m.L].Kind == "faults" && m.S == 15 {
			fault = true
		}
	}
	assert.True(t, drop, "a drop mark on the informer lane at step 17")
	assert.True(t, fault, "a fault mark at step 15")
	require.Len(t, d.Faults, 1)
	assert.Equal(t, 15, d.Records[d.Faults[0].R].S)
	assert.Greater(t, d.QuietFrom, 0)
}

// TestFightHistory: the fought-over field's history in the page holds the
// values flipping between the two writers.
func TestFightHistory(t *testing.T) {
	_, d := render(t, goldenRun(t, "hpa-gitops-fight", faults.Mix{}, 1))
	var deploy int = -1
	for i, o := range d.Objects {
		if o.Ref == "Deployment default/web" {
			deploy = i
		}
	}
	require.GreaterOrEqual(t, deploy, 0)
	var seq []string
	for _, v := range d.Objects[deploy].V {
		if v.Verb == "update" {
			seq = append(seq, v.F["spec.replicas"]+" "+d.Writers[v.W])
		}
	}
	require.GreaterOrEqual(t, len(seq), 5)
	assert.Equal(t, []string{"5 autoscaler", "3 gitops", "5 autoscaler", "3 gitops"}, seq[:4])
}

func TestPageIsDeterministic(t *testing.T) {
	var pages []string
	for range 2 {
		html, _ := render(t, searchRun(t, "replicaset-edge", faults.Mix{faults.KindDrop}, 6))
		pages = append(pages, html)
	}
	assert.Equal(t, pages[0], pages[1])
}

func TestBadRunsAreErrors(t *testing.T) {
	var b bytes.Buffer
	assert.ErrorContains(t, timeline.Write(&b, timeline.Run{}), "no cluster")

	c := model.NewCluster(model.Config{DiscardTrace: true})
	require.NoError(t, c.Apply(&model.Object{Kind: "ConfigMap", Namespace: "default", Name: "x"}))
	assert.ErrorContains(t, timeline.Write(&b, timeline.Run{Cluster: c}), "kept no trace")
}

// TestWriteGoldenPages writes the golden pages to $TIMELINE_OUT, for a
// look in a browser; it does nothing without it.
func TestWriteGoldenPages(t *testing.T) {
	dir := os.Getenv("TIMELINE_OUT")
	if dir == "" {
		t.Skip("set TIMELINE_OUT to a directory to write the golden pages there")
	}
	for _, g := range golden {
		require.NoError(t, timeline.WriteFile(filepath.Join(dir, g.scenario+".html"), goldenRun(t, g.scenario, g.mix, g.seed)))
	}
}

// marksOf returns the classes of the marks on lanes of the given kind.
func marksOf(d pageData, kind string) []string {
	var out []string
	for _, m := range d.Marks {
		if d.Lanes[m.L].Kind == kind {
			out = append(out, m.C)
		}
	}
	return out
}

func anyHas(classes []string, class string) bool {
	for _, c := range classes {
		for _, f := range strings.Fields(c) {
			if f == class {
				return true
			}
		}
	}
	return false
}

// TestInformerAndServerMarks: a duplicated event is a dup mark and a
// restart a relist on the informer's lane; a failed update a conflict mark
// on the API server's lane; a failed reconcile an error mark.
func TestInformerAndServerMarks(t *testing.T) {
	_, dup := render(t, goldenRun(t, "replicaset-edge", faults.Mix{faults.KindDuplicate}, 6))
	assert.True(t, anyHas(marksOf(dup, "informer"), "dup"), "a duplicate delivery is marked")
	_, restart := render(t, goldenRun(t, "replicaset-edge", faults.Mix{faults.KindRestart}, 3))
	assert.True(t, anyHas(marksOf(restart, "informer"), "relist"), "a restart relists the informers")
	_, pdb := render(t, goldenRun(t, "pdb-drain", faults.Mix{}, 1))
	assert.True(t, anyHas(marksOf(pdb, "server"), "conflict"), "the replicaset's update-status conflict at step 14")
	assert.True(t, anyHas(marksOf(pdb, "controller"), "error"), "the drain's refused eviction")
}

// TestSpans: a fault that lasts is a span on its lane, from the step it
// struck at to the step it ended: a stale cache on the informer's lane, a
// partition and a crash on the controller's.
func TestSpans(t *testing.T) {
	sc, ok := scenarios.ByName("replicaset-level")
	require.True(t, ok)
	sched := faults.Schedule{
		{At: 0, Fault: faults.Stale{Controller: "replicaset", Resource: "Pod", Behind: 2, For: 10}},
		{At: 0, Fault: faults.Partition{Controller: "replicaset", For: 5}},
		{At: 20, Fault: faults.Restart{Controller: "replicaset", Down: 5}},
	}
	out, err := properties.Execute(sc, sched, &properties.ReplayChooser{}, properties.RunOptions{})
	require.NoError(t, err)
	_, d := render(t, out.Timeline("spans", ""))
	for _, kind := range []string{"lag", "partition", "down"} {
		found := false
		for _, m := range d.Marks {
			if strings.Contains(m.C, "span "+kind) {
				found = true
				assert.Greater(t, m.E, m.S, "the %s span ends after it began", kind)
			}
		}
		assert.True(t, found, "a %s span", kind)
	}
}
