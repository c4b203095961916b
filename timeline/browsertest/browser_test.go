package browsertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/converge-sim/converge/timeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "rewrite the screenshots in the repository's docs/")

// chrome returns the path of a Chromium binary, or skips the test (fails
// it when $CONVERGE_REQUIRE_BROWSER is set).
func chrome(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CONVERGE_CHROME"); p != "" {
		return p
	}
	names := []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no Chromium found (looked for $CONVERGE_CHROME and %s on $PATH): run scripts/install-chromium.sh as root to install Debian's chromium", strings.Join(names, ", "))
	if os.Getenv("CONVERGE_REQUIRE_BROWSER") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browser starts a headless Chromium and returns a context for it.
func browser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1600, 1000),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")), "start Chromium")
	return ctx
}

// writePage writes run's page into dir and returns its file URL and size.
func writePage(t testing.TB, dir, name string, run timeline.Run) (string, int64) {
	t.Helper()
	path := filepath.Join(dir, name+".html")
	require.NoError(t, timeline.WriteFile(path, run))
	st, err := os.Stat(path)
	require.NoError(t, err)
	return "file://" + path, st.Size()
}

// load opens the page, waits until its script has drawn it, and returns
// its load time from the Navigation Timing API: from the start of
// navigation to the end of the load event, which follows the page's
// script. A guard timeout stops a browser that never answers; nothing
// asserts on time.
func load(t testing.TB, ctx context.Context, url string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	))
	return eval[float64](t, ctx, `performance.getEntriesByType('navigation')[0].loadEventEnd`)
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, "evaluate %s", expr)
	return v
}

// text returns the text of the element sel selects. chromedp waits for
// the element to appear; a guard timeout fails the test when it never
// does, instead of hanging it.
func text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, "the text of %s", sel)
	return v
}

func click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))), "click %s", sel)
}

// pageData is the script's expression for the page's data.
const pageData = `JSON.parse(document.getElementById('data').textContent)`

// drawnMark returns the index of a mark drawn on a lane of the given kind
// for which the JavaScript predicate pred(D, m) holds (D the page's data,
// m the mark), the middle one of those in view; -1 when none is.
func drawnMark(t testing.TB, ctx context.Context, laneKind, pred string) int {
	t.Helper()
	return eval[int](t, ctx, fmt.Sprintf(`(function () {
		var D = %s, pred = %s;
		var ms = Array.from(document.querySelectorAll('.lane[data-kind=%q] .mark')).filter(function (el) {
			return pred(D, D.marks[+el.dataset.i]);
		});
		return ms.length ? +ms[Math.floor(ms.length / 2)].dataset.i : -1;
	})()`, pageData, pred, laneKind))
}

// anyMark is a drawnMark predicate that takes every mark.
const anyMark = `function () { return true; }`

// clickMark clicks the drawn mark i with the mouse and checks that the
// record panel then shows its step and full record, and the mark is drawn
// selected. It returns the step.
func clickMark(t *testing.T, ctx context.Context, i int) string {
	t.Helper()
	sel := fmt.Sprintf(`.mark[data-i="%d"]`, i)
	step := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s').dataset.step`, sel))
	// A real mouse click on a pixel where the mark is on top: at a pixel
	// or two per step the next mark overlaps most of it. The scroll makes
	// the page redraw its lanes at the next animation frame; the click
	// waits for that frame, or the redraw could replace the mark between
	// mouse down and up and the click would land on no mark.
	at, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`new Promise(function (done) {
		document.querySelector('%[1]s').scrollIntoView({block: 'center', inline: 'nearest'});
		requestAnimationFrame(function () { requestAnimationFrame(function () {
			var el = document.querySelector('%[1]s'), r = el.getBoundingClientRect(), y = r.top + r.height / 2;
			for (var x = Math.ceil(r.left); x < r.right; x++) {
				if (document.elementFromPoint(x, y) === el) { done([x, y]); return; }
			}
			done([]);
		}); });
	})`, sel), chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Len(t, at, 2, "mark %d is on top somewhere, to be clicked", i)
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(at[0], at[1])))
	assert.Equal(t, step, eval[string](t, ctx, `document.getElementById('record').dataset.step`), "the record panel shows the clicked mark's step")
	panel := text(t, ctx, "#record")
	assert.Contains(t, panel, "Record — step "+step+",")
	assert.Contains(t, panel, "#"+step+" t=", "the panel holds the full trace record")
	assert.True(t, eval[bool](t, ctx, fmt.Sprintf(`document.querySelector('.mark.sel[data-i="%d"]') !== null`, i)), "the clicked mark is drawn selected")
	return step
}

// clickRecordMark clicks a mark of the given lane kind in view and checks
// that the record panel then shows that mark's step.
func clickRecordMark(t *testing.T, ctx context.Context, laneKind string) {
	t.Helper()
	i := drawnMark(t, ctx, laneKind, anyMark)
	require.GreaterOrEqual(t, i, 0, "a mark on the %s lane is in view", laneKind)
	clickMark(t, ctx, i)
}

// checkLanes checks that the page has a lane for each controller, each
// of its informers, each outside actor (each with marks), the faults and
// the API server.
func checkLanes(t *testing.T, ctx context.Context, run timeline.Run, actors []string) {
	t.Helper()
	lanes := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('.lane')).map(l => l.dataset.kind + ':' + l.dataset.lane)`)
	labels := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#labels > div')).slice(1).map(l => l.textContent)`)
	assert.Len(t, labels, len(lanes), "each lane has its label")
	for _, ctl := range run.Cluster.Controllers() {
		assert.Contains(t, lanes, "controller:"+ctl)
	}
	for _, inf := range run.Cluster.Informers() {
		assert.Contains(t, lanes, "informer:"+inf.Name())
	}
	for _, a := range actors {
		assert.Contains(t, lanes, "actor:"+a, "a lane for outside actor %s", a)
		assert.Positive(t, eval[int](t, ctx, fmt.Sprintf(`(function () {
			var D = %s, l = D.lanes.findIndex(function (l) { return l.kind === 'actor' && l.name === %q; });
			return D.marks.filter(function (m) { return m.l === l; }).length;
		})()`, pageData, a)), "outside actor %s has marks on its lane", a)
	}
	assert.Equal(t, len(actors), eval[int](t, ctx, `document.querySelectorAll('.lane[data-kind=actor]').length`), "one lane per outside actor, no more")
	assert.Contains(t, lanes, "faults:faults")
	assert.Contains(t, lanes, "server:API server")
}

// checkAxis checks the time axis: ticks in view, each with its step
// number and the virtual time of that step's record.
func checkAxis(t *testing.T, ctx context.Context) {
	t.Helper()
	type tick struct {
		Text string  `json:"text"`
		Step int     `json:"step"`
		Want float64 `json:"want"`
	}
	ticks := eval[[]tick](t, ctx, fmt.Sprintf(`(function () {
		var D = %s, at = {};
		D.records.forEach(function (r) { at[r.s] = r.t; });
		return Array.from(document.querySelectorAll('#ruler .tick')).map(function (el) {
			var s = +el.textContent.match(/^#(\d+)/)[1];
			return {text: el.innerText, step: s, want: at[s]};
		});
	})()`, pageData))
	require.GreaterOrEqual(t, len(ticks), 2, "the axis has ticks in view")
	for _, k := range ticks {
		assert.Equal(t, fmt.Sprintf("#%d\nt=%d", k.Step, int64(k.Want)), k.Text, "a tick shows the step number and its virtual time")
	}
	assert.Equal(t, "step / t", text(t, ctx, "#labels .ruler-label"))
}

// checkPhases checks the shading: the fault phase from the first step,
// and, when the run got there, quiescence right after it to the end.
func checkPhases(t *testing.T, ctx context.Context, run timeline.Run) {
	t.Helper()
	type box struct {
		Left, Width float64
		Shown       bool
		Title       string
	}
	get := func(sel string) box {
		return eval[box](t, ctx, fmt.Sprintf(`(function () {
			var el = document.querySelector(%q), r = el.getBoundingClientRect();
			return {Left: el.offsetLeft, Width: r.width, Shown: getComputedStyle(el).display !== 'none', Title: el.title};
		})()`, sel))
	}
	fault, quiet := get(".phase.fault-phase"), get(".phase.quiet-phase")
	assert.True(t, fault.Shown)
	assert.Positive(t, fault.Width, "the fault phase is shaded")
	assert.Equal(t, "fault phase", fault.Title)
	if run.QuietFrom == 0 {
		assert.False(t, quiet.Shown, "a run that failed before quiescence has none shaded")
		return
	}
	assert.True(t, quiet.Shown, "quiescence is shaded")
	assert.Positive(t, quiet.Width)
	assert.Contains(t, quiet.Title, "quiescence")
	assert.InDelta(t, fault.Left+fault.Width, quiet.Left, 1, "quiescence begins where the fault phase ends")
	// The boundary sits at the step quiescence began: marks are drawn at
	// their step's position, so two of them give the scale.
	assert.InDelta(t, float64(run.QuietFrom), eval[float64](t, ctx, `(function () {
		var ms = Array.from(document.querySelectorAll('.lane .mark')).filter(function (el) { return !el.classList.contains('span'); });
		var a = ms[0], b = ms.find(function (el) { return el.dataset.step !== a.dataset.step; });
		var la = parseFloat(a.style.left), lb = parseFloat(b.style.left);
		var px = (lb - la) / (b.dataset.step - a.dataset.step);
		return +a.dataset.step + (parseFloat(document.querySelector('.phase.quiet-phase').style.left) - la) / px;
	})()`), 0.01, "quiescence is shaded from step %d", run.QuietFrom)
}

// checkWriteMark clicks a write on the API server's lane that changed a
// field of an existing object, and checks that it is linked to that
// object: the record panel names the object and shows the write's
// resourceVersion and its diff against the previous version, and the
// object is selected, its field history showing the changed field.
func checkWriteMark(t *testing.T, ctx context.Context) {
	t.Helper()
	// An update: the mark's object is written at its step, to a version
	// after the first, and some field changed.
	i := drawnMark(t, ctx, "server", `function (D, m) {
		if (m.o < 0 || m.c.split(' ').indexOf('write') < 0) { return false; }
		return (D.records[m.r].w || []).some(function (w) {
			var vs = D.objects[w.o].v, cur = vs[w.v], prev = vs[w.v - 1];
			if (w.o !== m.o || w.v < 1 || cur.del || prev.del) { return false; }
			return Object.keys(Object.assign({}, prev.f, cur.f)).some(function (p) { return (prev.f || {})[p] !== (cur.f || {})[p]; });
		});
	}`)
	require.GreaterOrEqual(t, i, 0, "an update of an object is in view on the API server's lane")
	type write struct {
		Ref            string
		Obj            int
		RV, PrevRV     int
		PrevStep       int
		Field, Old, To string
	}
	w := eval[write](t, ctx, fmt.Sprintf(`(function () {
		var D = %s, m = D.marks[%d];
		var w = D.records[m.r].w.find(function (w) { return w.o === m.o && w.v >= 1; });
		var vs = D.objects[w.o].v, cur = vs[w.v], prev = vs[w.v - 1], a = prev.f || {}, b = cur.f || {};
		var p = Object.keys(Object.assign({}, a, b)).sort().find(function (p) { return a[p] !== b[p] && a[p] !== undefined && b[p] !== undefined; });
		return {Ref: D.objects[w.o].ref, Obj: w.o, RV: cur.rv, PrevRV: prev.rv, PrevStep: prev.s, Field: p || '', Old: a[p] || '', To: b[p] || ''};
	})()`, pageData, i))
	clickMark(t, ctx, i)
	panel := text(t, ctx, "#record")
	assert.Equal(t, w.Ref, text(t, ctx, fmt.Sprintf(`#record a.objlink[data-obj="%d"]`, w.Obj)), "the record links the object the write touched")
	assert.Contains(t, panel, fmt.Sprintf("resourceVersion %d,", w.RV), "the write's resourceVersion")
	assert.Contains(t, panel, fmt.Sprintf("diff against resourceVersion %d (step %d)", w.PrevRV, w.PrevStep), "a diff against the previous version")
	assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('#record tr.changed').length`), "the changed fields are marked")
	if w.Field != "" {
		row := eval[string](t, ctx, fmt.Sprintf(`Array.from(document.querySelectorAll('#record tr.changed')).map(function (r) { return r.innerText; }).find(function (s) { return s.indexOf(%q) === 0; }) || ''`, w.Field))
		assert.Contains(t, row, w.Old+" → "+w.To, "the changed field %s shows its old and new value", w.Field)
		assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('#record tr.changed .old, #record tr.changed .new').length`), "old and new values are told apart")
	}
	// The object is selected: its chip, its history, its marks.
	assert.Equal(t, w.Obj, eval[int](t, ctx, `+document.querySelector('#objects .obj.sel').dataset.obj`), "the write's object is selected")
	assert.Contains(t, text(t, ctx, "#object h2"), "Object "+w.Ref)
	assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('.mark.of-obj').length`), "the object's marks are drawn highlighted")
	if w.Field != "" {
		assert.Equal(t, 1, eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#object .hist[data-path=%q]').length`, w.Field)), "the field history lists %s", w.Field)
	}
}

// checkObjectHistory selects an object from the objects list and checks
// its field history: each changed field with its values and writers, a
// value linked to the step that wrote it. want are writers the history
// must name.
func checkObjectHistory(t *testing.T, ctx context.Context, want []string) {
	t.Helper()
	// The object with the most versions: the one the story is about.
	type obj struct {
		I        int
		Ref      string
		Versions int
	}
	o := eval[obj](t, ctx, fmt.Sprintf(`(function () {
		var D = %s, best = 0;
		D.objects.forEach(function (o, i) { if (o.v.length > D.objects[best].v.length) { best = i; } });
		return {I: best, Ref: D.objects[best].ref, Versions: D.objects[best].v.length};
	})()`, pageData))
	require.Greater(t, o.Versions, 1, "some object changed")
	click(t, ctx, fmt.Sprintf(`#objects .obj[data-obj="%d"]`, o.I))
	history := text(t, ctx, "#object")
	assert.Contains(t, history, fmt.Sprintf("Object %s", o.Ref))
	assert.Contains(t, history, fmt.Sprintf("%d stored versions", o.Versions))
	assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('#object .hist').length`), "the fields that changed")
	for _, w := range want {
		assert.Contains(t, eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#object .chip .who')).map(e => e.textContent)`), w, "the field history names writer %s", w)
	}
	// A value is linked to the step that wrote it.
	chip := `#object .hist .chip:last-child`
	step := eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).dataset.step`, chip))
	click(t, ctx, chip)
	assert.Equal(t, step, eval[string](t, ctx, `document.getElementById('record').dataset.step`), "clicking a value shows the step that wrote it")
	assert.Contains(t, text(t, ctx, "#record"), "Record — step "+step+",")
}

// checkFaultLinks clicks each fault of the schedule and checks that its
// mark on the faults lane is selected and the record panel shows the step
// it struck at.
func checkFaultLinks(t *testing.T, ctx context.Context, run timeline.Run) {
	t.Helper()
	links := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#schedule li')).map(li => li.textContent)`)
	require.Len(t, links, len(run.Schedule), "the schedule lists each fault")
	if len(run.Schedule) == 0 {
		assert.Contains(t, text(t, ctx, "#schedule"), "Fault schedule: none")
		return
	}
	for k := range links {
		link := fmt.Sprintf(`#schedule li:nth-child(%d) a[data-fault]`, k+1)
		step := strings.TrimPrefix(text(t, ctx, link), "→ step ")
		click(t, ctx, link)
		assert.Equal(t, step, eval[string](t, ctx, `document.querySelector('.lane[data-kind=faults] .mark.fault.sel').dataset.step`), "fault %d's mark is selected", k+1)
		assert.Equal(t, step, eval[string](t, ctx, `document.getElementById('record').dataset.step`))
		assert.Contains(t, text(t, ctx, "#record"), fmt.Sprintf(" fault #%d ", k+1))
	}
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NotEmpty(t, png)
	path := filepath.Join(t.TempDir(), name)
	if *updateScreenshots {
		path = filepath.Join("..", "..", "docs", name)
	}
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
}

// TestGoldenPagesInChromium loads the page of each golden counterexample,
// checks its lanes, violation and fault marks, clicks a mark and checks
// the record panel, and takes a screenshot.
func TestGoldenPagesInChromium(t *testing.T) {
	ctx := browser(t)
	dir := t.TempDir()
	for _, g := range Goldens {
		t.Run(g.Scenario, func(t *testing.T) {
			run, err := g.Run()
			require.NoError(t, err)
			url, size := writePage(t, dir, g.Scenario, run)
			ms := load(t, ctx, url)
			t.Logf("%s: %d steps, %d bytes, loaded in %.0f ms", g.Scenario, run.Cluster.Steps(), size, ms)

			checkLanes(t, ctx, run, g.Actors)
			checkAxis(t, ctx)
			checkPhases(t, ctx, run)

			// The violation: its panel with the diagnosis, its line, its
			// marks.
			violation := text(t, ctx, "#violation")
			assert.Contains(t, violation, "Violated: "+run.Violation.Property+" ("+run.Violation.Verdict+")")
			assert.Contains(t, violation, "Diagnosis")
			assert.Contains(t, violation, run.Violation.Summary)
			assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('#vline').length`))
			assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('.mark.violation').length`))

			// The object the violation touched is selected: its field
			// history names the writers (for the fight, the two of them
			// flipping spec.replicas).
			history := text(t, ctx, "#object")
			for _, w := range writersOf(run.Violation.Details) {
				assert.Contains(t, history, w, "the field history names writer %s", w)
			}

			checkWriteMark(t, ctx)
			checkObjectHistory(t, ctx, writersOf(run.Violation.Details))
			checkFaultLinks(t, ctx, run)
			clickRecordMark(t, ctx, "server")
			// The screenshot shows a dropped notification's record, when
			// the run has one.
			if eval[bool](t, ctx, `document.querySelector('.lane .mark.drop') !== null`) {
				click(t, ctx, ".lane .mark.drop")
			}
			screenshot(t, ctx, "timeline-"+g.Scenario+".png")
		})
	}
}

// TestLongRunInChromium loads the page of a 5,000-step run: it draws only
// the marks in view, and a click still shows its record.
func TestLongRunInChromium(t *testing.T) {
	ctx := browser(t)
	run, err := LongRun()
	require.NoError(t, err)
	require.GreaterOrEqual(t, run.Cluster.Steps(), 5000)
	url, size := writePage(t, t.TempDir(), "long", run)
	ms := load(t, ctx, url)
	drawn := eval[int](t, ctx, `document.querySelectorAll('.mark').length`)
	total := eval[int](t, ctx, `JSON.parse(document.getElementById('data').textContent).marks.length`)
	t.Logf("long run: %d steps, %d bytes, %d marks of which %d drawn, loaded in %.0f ms", run.Cluster.Steps(), size, total, drawn, ms)
	assert.Less(t, drawn, total/2, "only the marks in view are drawn")
	assert.Equal(t, len(run.Schedule), eval[int](t, ctx, `document.querySelectorAll('#schedule a[data-fault]').length`), "every fault struck")
	checkLanes(t, ctx, run, []string{"user"})
	checkAxis(t, ctx)
	checkPhases(t, ctx, run)
	clickRecordMark(t, ctx, "controller")
	checkWriteMark(t, ctx)
	// The faults struck far from the violation: their marks are drawn and
	// selected when their links are clicked.
	checkFaultLinks(t, ctx, run)
}

// TestPassingPageInChromium loads the page of a run that passed (what
// fuzzrun -html writes for a seed that converges): it says no property
// was violated, marks no violation, and draws the run like any other.
func TestPassingPageInChromium(t *testing.T) {
	ctx := browser(t)
	run, err := PassingRun()
	require.NoError(t, err)
	require.Nil(t, run.Violation)
	url, size := writePage(t, t.TempDir(), "passing", run)
	ms := load(t, ctx, url)
	t.Logf("passing run: %d steps, %d bytes, loaded in %.0f ms", run.Cluster.Steps(), size, ms)
	violation := text(t, ctx, "#violation")
	assert.Contains(t, violation, "No property violated")
	assert.Contains(t, violation, fmt.Sprintf("quiescence began at step %d", run.QuietFrom))
	assert.True(t, eval[bool](t, ctx, `document.getElementById('violation').classList.contains('passed')`))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('#vline, .mark.violation').length`), "no violation is marked")
	checkLanes(t, ctx, run, []string{"chaos", "user"})
	checkAxis(t, ctx)
	checkPhases(t, ctx, run)
	clickRecordMark(t, ctx, "controller")
	checkWriteMark(t, ctx)
	checkObjectHistory(t, ctx, nil)
	checkFaultLinks(t, ctx, run)
	// The quiescence link in the panel goes to its step.
	click(t, ctx, "#violation a[data-goto]")
	assert.Equal(t, fmt.Sprint(run.QuietFrom), eval[string](t, ctx, `document.getElementById('record').dataset.step`))
}

// BenchmarkLoadLongRun and BenchmarkLoadSmallRun measure opening a page
// in headless Chromium, from navigation until its script has drawn it
// (load-ms, from the Navigation Timing API), for the 5,000-step run and
// for replicaset-edge under drop (19 steps):
//
//	go test -run '^$' -bench Load -benchtime 10x
func BenchmarkLoadLongRun(b *testing.B) {
	run, err := LongRun()
	require.NoError(b, err)
	benchmarkLoad(b, run)
}

func BenchmarkLoadSmallRun(b *testing.B) {
	run, err := Goldens[0].Run()
	require.NoError(b, err)
	benchmarkLoad(b, run)
}

func benchmarkLoad(b *testing.B, run timeline.Run) {
	ctx := browser(b)
	url, size := writePage(b, b.TempDir(), "page", run)
	load(b, ctx, url)
	var total float64
	b.ResetTimer()
	for range b.N {
		total += load(b, ctx, url)
	}
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(total/float64(b.N), "load-ms")
}

// writersOf reads the writers of a fight from its details ("writers: a,
// b"); none for other verdicts.
func writersOf(details []string) []string {
	for _, d := range details {
		if list, ok := strings.CutPrefix(d, "writers: "); ok {
			return strings.Split(list, ", ")
		}
	}
	return nil
}
