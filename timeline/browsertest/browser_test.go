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

func text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err)
	return v
}

func click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))))
}

// clickRecordMark clicks a mark of the given lane kind in view and checks
// that the record panel then shows that mark's step.
func clickRecordMark(t *testing.T, ctx context.Context, laneKind string) {
	t.Helper()
	i := eval[int](t, ctx, fmt.Sprintf(`(function () {
		var ms = document.querySelectorAll('.lane[data-kind=%q] .mark');
		return ms.length ? +ms[Math.floor(ms.length / 2)].dataset.i : -1;
	})()`, laneKind))
	require.GreaterOrEqual(t, i, 0, "a mark on the %s lane is in view", laneKind)
	sel := fmt.Sprintf(`.mark[data-i="%d"]`, i)
	step := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s').dataset.step`, sel))
	// A real mouse click where the mark is drawn, at its left edge: at a
	// pixel or two per step the next mark overlaps the rest of it. The
	// scroll makes the page redraw its lanes at the next animation frame;
	// the click waits for that frame, or the redraw could replace the mark
	// between mouse down and up and the click would land on no mark.
	at, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`new Promise(function (done) {
		document.querySelector('%[1]s').scrollIntoView({block: 'center', inline: 'nearest'});
		requestAnimationFrame(function () { requestAnimationFrame(function () {
			var r = document.querySelector('%[1]s').getBoundingClientRect();
			done([r.left + 0.5, r.top + r.height / 2]);
		}); });
	})`, sel), chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(at[0], at[1])))
	assert.Equal(t, step, eval[string](t, ctx, `document.getElementById('record').dataset.step`), "the record panel shows the clicked mark's step")
	panel := text(t, ctx, "#record")
	assert.Contains(t, panel, "Record — step "+step+",")
	assert.Contains(t, panel, "#"+step+" t=", "the panel holds the full trace record")
	assert.True(t, eval[bool](t, ctx, fmt.Sprintf(`document.querySelector('.mark.sel[data-i="%d"]') !== null`, i)), "the clicked mark is drawn selected")
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

			// Lanes: one per controller and per informer, the faults, the
			// API server.
			lanes := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('.lane')).map(l => l.dataset.kind + ':' + l.dataset.lane)`)
			for _, ctl := range run.Cluster.Controllers() {
				assert.Contains(t, lanes, "controller:"+ctl)
			}
			for _, inf := range run.Cluster.Informers() {
				assert.Contains(t, lanes, "informer:"+inf.Name())
			}
			assert.Contains(t, lanes, "faults:faults")
			assert.Contains(t, lanes, "server:API server")

			// The violation: its panel with the diagnosis, its line, its
			// marks.
			violation := text(t, ctx, "#violation")
			assert.Contains(t, violation, "Violated: "+run.Violation.Property+" ("+run.Violation.Verdict+")")
			assert.Contains(t, violation, "Diagnosis")
			assert.Contains(t, violation, run.Violation.Summary)
			assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('#vline').length`))
			assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('.mark.violation').length`))

			// The fault schedule: each fault links to its mark.
			links := eval[int](t, ctx, `document.querySelectorAll('#schedule a[data-fault]').length`)
			assert.Equal(t, len(run.Schedule), links)
			if links > 0 {
				click(t, ctx, `#schedule a[data-fault]`)
				assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('.lane[data-kind=faults] .mark.fault.sel').length`), "the fault's mark is selected")
				assert.Contains(t, text(t, ctx, "#record"), " fault #1 ")
			} else {
				assert.Contains(t, text(t, ctx, "#schedule"), "Fault schedule: none")
			}

			// The object the violation touched is selected: its field
			// history names the writers (for the fight, the two of them
			// flipping spec.replicas).
			history := text(t, ctx, "#object")
			for _, w := range writersOf(run.Violation.Details) {
				assert.Contains(t, history, w, "the field history names writer %s", w)
			}

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
	clickRecordMark(t, ctx, "controller")
	click(t, ctx, `#schedule a[data-fault]`)
	assert.Contains(t, text(t, ctx, "#record"), " fault #1 ", "the first fault's mark, far from the violation, is drawn and selected")
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
