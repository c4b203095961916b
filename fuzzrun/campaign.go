package fuzzrun

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/converge-sim/converge/properties"
)

// abandonGrace is how long runs in flight may finish after SIGINT or
// SIGTERM before they are abandoned; a second signal abandons them at
// once.
const abandonGrace = 5 * time.Second

// tickEvery paces hang checks and the terminal progress line.
const tickEvery = 200 * time.Millisecond

// Batches: a job runs for batchTarget (less near the deadline), and holds
// twice as many seeds as the row's mean run time so far fits in it, at
// most maxBatch.
const (
	batchTarget = 100 * time.Millisecond
	maxBatch    = 1000
)

// Overtime. Rows share -duration by the worker time they spend, so under
// load, or beside rows whose failing runs shrink for long, a row may get
// only a few runs in its share. A row that must fail and has not failed
// when the shared budget ends therefore runs on past it (beside the other
// such rows, the one that has spent least getting the next run) until it
// fails or reaches its own cap: overtimeRuns runs in all, or
// overtimeFactor times -duration of worker time past the budget (at most
// overtimeMaxTime) whatever its runs. Only then is it "not shown within
// its budget" (ExitNotShown), never a wrong verdict. The cap counts runs
// first because a row runs its seeds in order: a loaded machine, which runs
// fewer seeds in the budget, reaches the same first failing seed, and so
// the same verdict, as a quiet one, only later. The catalog's rarest
// expected failure is replicaset-noresync under drop with -strategy pct:
// first at seed 726 of seeds 1, 2, …, and 2 failures in 1,500 runs.
const (
	overtimeRuns    = 2000
	overtimeFactor  = 30
	overtimeMaxTime = 10 * time.Minute
)

// overtimeCap is a row's own cap past the shared budget (see
// overtimeRuns): runs in all, or time spent past the budget.
type overtimeCap struct {
	runs int
	time time.Duration
}

// campaign runs the rows' seeds on workers until the budget is spent, the
// seed space is exhausted or a signal stops it. It owns all its state: the
// workers only run jobs and report events.
type campaign struct {
	opts   *options
	stdout io.Writer
	stderr io.Writer
	rows   []*rowState
	store  *store
	evs    events
	slots  map[int]*slot
	nextID int
	jobs   int
	start  time.Time
	// deadline is the end of the wall-clock budget; zero for none.
	deadline time.Time
	// overtime is each row's own cap past the deadline; zero for none.
	overtime overtimeCap

	stopping    bool
	interrupted bool
	abandonAt   time.Time
	abandoned   int
	// noRespawn is set when a worker cannot be replaced (an in-process run
	// hung), with the reason.
	noRespawn string
	runs      int
	// writeErrors counts findings that could not be written to -out.
	writeErrors int
	progress    *progress

	// brokenProtocol is set when a worker broke the protocol.
	brokenProtocol bool
}

// slot is a live worker and the job it runs, if any: pos seeds of it are
// done, the last at lastAt.
type slot struct {
	w      worker
	job    *job
	pos    int
	lastAt time.Time
}

// rowState is a row's place in the seed space and what it found so far.
type rowState struct {
	row  Row
	res  RowResult
	next int // index of the next seed within the shard
	// retry holds seeds to run (again): those a job did not get to, and
	// those after a lost run in its job.
	retry []uint64
	// spent is the worker time its finished runs took; the campaign gives
	// the next run to the row that has spent least, so rows share the
	// budget by time, as they would run one after another.
	spent time.Duration
	// spentInBudget is spent when the shared budget ended: what the row
	// spends after it is its overtime.
	spentInBudget time.Duration
}

// mustFail reports whether the row must show a failure.
func (r *rowState) mustFail() bool { return r.row.Known && r.row.Expect.Fails != "" }

// inOvertime reports whether the row runs on past the shared budget: it
// must fail, has not failed (a wrong verdict needs no more runs) and is
// within its cap; spent is its worker time including runs in flight.
func (r *rowState) inOvertime(spent time.Duration, limit overtimeCap) bool {
	if !r.mustFail() || r.res.Failures > 0 || r.res.Error != "" {
		return false
	}
	over := spent - r.spentInBudget
	return r.res.Runs < limit.runs && over < limit.time
}

func newCampaign(opts *options, stdout, stderr io.Writer) (*campaign, []string, error) {
	st, warnings, err := openStore(opts.out, rows(opts))
	if err != nil {
		return nil, nil, err
	}
	st.wrap = opts.host.runWrap()
	c := &campaign{
		opts:   opts,
		stdout: stdout,
		stderr: stderr,
		store:  st,
		evs:    events{c: make(chan event), quit: make(chan struct{})},
		slots:  map[int]*slot{},
	}
	if opts.duration > 0 {
		c.overtime = overtimeCap{runs: overtimeRuns, time: min(overtimeFactor*opts.duration, overtimeMaxTime)}
	}
	for _, row := range rows(opts) {
		c.rows = append(c.rows, &rowState{row: row, res: RowResult{Scenario: row.Scenario.Name, Faults: row.Mix.String(), ShrunkFaults: -1}})
	}
	return c, warnings, nil
}

// spawn starts one worker: in this process for -workers 1, else a
// subprocess of this program.
func (c *campaign) spawn() error {
	id := c.nextID
	c.nextID++
	if c.opts.workers == 1 {
		softLimit(c.opts.workerMemory)
		c.slots[id] = &slot{w: startInProc(id, c.opts.scenarios, c.opts.host.searchWrap(), c.evs, c.stderr)}
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to run workers: %w", err)
	}
	args := append([]string{fmt.Sprintf("-worker-memory=%d", c.opts.workerMemory)}, c.opts.rapidArgs...)
	w, err := startProc(id, c.opts.host.workerSpec(exe, args), c.stderr, c.evs)
	if err != nil {
		return err
	}
	c.slots[id] = &slot{w: w}
	return nil
}

// run runs the campaign and returns the exit code.
func (c *campaign) run() int {
	c.start = time.Now()
	if c.opts.duration > 0 {
		c.deadline = c.start.Add(c.opts.duration)
	}
	for range c.workersNeeded() {
		if err := c.spawn(); err != nil {
			if len(c.slots) == 0 {
				fmt.Fprintf(c.stderr, "fuzzrun: %v\n", err)
				return ExitUsage
			}
			fmt.Fprintf(c.stderr, "fuzzrun: running with %d workers: %v\n", len(c.slots), err)
			break
		}
	}
	sig := make(chan os.Signal, 2)
	// SIGHUP too: a closed terminal or CI session stops the campaign as
	// a cancelled one does, with its summary and its workers stopped.
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	var budget <-chan time.Time
	if !c.deadline.IsZero() {
		t := time.NewTimer(time.Until(c.deadline))
		defer t.Stop()
		budget = t.C
	}
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	c.progress = newProgress(c)
	c.progress.begin()

	for {
		if !c.stopping && !c.deadline.IsZero() && !time.Now().Before(c.deadline) {
			// Past the deadline before its timer's event is read: no job
			// starts within a budget that is spent.
			c.endBudget()
		}
		c.dispatch()
		if c.busy() == 0 {
			break
		}
		select {
		case ev := <-c.evs.c:
			c.handle(ev)
		case <-budget:
			if !c.stopping {
				c.endBudget()
			}
		case <-sig:
			if c.interrupted {
				c.abandonAt = time.Now()
			} else {
				c.interrupted, c.stopping = true, true
				c.abandonAt = time.Now().Add(abandonGrace)
			}
			c.checkAbandon()
		case <-tick.C:
			c.checkHangs()
			c.checkAbandon()
			c.progress.tick()
		}
	}
	c.shutdown()
	return c.finish()
}

// endBudget ends the shared budget: from now on only rows that have not
// run and rows in overtime get runs.
func (c *campaign) endBudget() {
	c.stopping = true
	for _, r := range c.rows {
		r.spentInBudget = r.spent
	}
}

// workersNeeded is -workers, or fewer when the campaign has fewer seeds
// than that to run: a worker without a seed would only cost a process.
func (c *campaign) workersNeeded() int {
	if c.opts.runs == 0 {
		return c.opts.workers
	}
	seeds := 0
	for _, r := range c.rows {
		for j := 0; seeds < c.opts.workers; j++ {
			if _, ok := c.opts.shard.seed(c.opts.seed, c.opts.runs, j+r.next); !ok {
				break
			}
			seeds++
		}
	}
	return max(1, min(c.opts.workers, seeds))
}

// dispatch gives a job to every idle worker, while there is one to give.
func (c *campaign) dispatch() {
	for id, s := range c.slots {
		if s.job != nil {
			continue
		}
		r := c.pick()
		if r == nil {
			return
		}
		seeds := c.batch(r)
		c.jobs++
		j := &job{ID: c.jobs, Row: c.index(r), Scenario: r.row.Scenario.Name, Faults: r.row.Mix.String(), Seeds: seeds, Budget: c.budget()}
		if s := c.opts.strategy; s.Name != "" && s.Name != properties.StrategyRandom {
			j.Strategy, j.Depth = s.Name, s.Depth
		} else if !c.opts.noPlan {
			j.PlanFrom = c.opts.seed
		}
		s.job, s.pos, s.lastAt = j, 0, time.Now()
		if err := s.w.start(j); err != nil {
			// The worker died while idle: its gone event is on its way.
			// The seeds never ran; they wait for another worker.
			fmt.Fprintf(c.stderr, "fuzzrun: a worker could not take a job: %v\n", err)
			r.retry = append(slices.Clone(seeds), r.retry...)
			delete(c.slots, id)
			s.w.kill()
			c.respawn()
		}
	}
}

// pick returns the row to run next: of the rows with seeds left, the one
// that has spent least time; once the budget is spent, only a row that has
// not run at all (every row gets one run) or one in overtime, and none
// after a signal or a failed write to -out; nil when there is none.
func (c *campaign) pick() *rowState {
	var best *rowState
	var bestSpent time.Duration
	for _, r := range c.rows {
		if !c.hasSeeds(r) || r.res.Error != "" || c.halted() {
			continue
		}
		spent := c.spentBy(r)
		if c.stopping && r.next > 0 && !r.inOvertime(spent, c.overtime) {
			continue
		}
		if best == nil || spent < bestSpent {
			best, bestSpent = r, spent
		}
	}
	return best
}

// spentBy is the worker time row r has spent, its runs in flight
// included.
func (c *campaign) spentBy(r *rowState) time.Duration {
	now := time.Now()
	spent := r.spent
	for _, s := range c.slots {
		if s.job != nil && c.rows[s.job.Row] == r {
			spent += now.Sub(s.lastAt)
		}
	}
	return spent
}

// rowsInOvertime counts the rows running past the shared budget.
func (c *campaign) rowsInOvertime() int {
	n := 0
	for _, r := range c.rows {
		if c.stopping && !c.halted() && c.hasSeeds(r) && r.inOvertime(c.spentBy(r), c.overtime) {
			n++
		}
	}
	return n
}

// halted reports whether the campaign starts no more runs at all, rows in
// overtime included: after a signal, a failed write to -out or a worker
// that broke the protocol.
func (c *campaign) halted() bool {
	return c.interrupted || c.writeErrors > 0 || c.brokenProtocol
}

// hasSeeds reports whether the row has seeds left to run.
func (c *campaign) hasSeeds(r *rowState) bool {
	_, ok := c.opts.shard.seed(c.opts.seed, c.opts.runs, r.next)
	return ok || len(r.retry) > 0
}

// budget is how long the next job may run: a row in overtime has its own
// budget past the shared one.
func (c *campaign) budget() time.Duration {
	if c.deadline.IsZero() || c.stopping && !c.interrupted {
		return batchTarget
	}
	return max(0, min(batchTarget, time.Until(c.deadline)))
}

// batch takes the row's next seeds for one job: seeds to retry first, then
// the shard's next ones.
func (c *campaign) batch(r *rowState) []uint64 {
	n := 1
	if r.res.Runs > 0 && (!c.stopping || r.inOvertime(c.spentBy(r), c.overtime)) {
		mean := r.spent / time.Duration(r.res.Runs)
		n = min(max(1, 2*int(c.budget()/max(mean, 1))), maxBatch)
		if c.stopping && r.res.Runs < c.overtime.runs {
			// In overtime a job holds no more runs than the cap leaves.
			n = min(n, c.overtime.runs-r.res.Runs)
		}
	}
	seeds := slices.Clone(r.retry[:min(n, len(r.retry))])
	r.retry = slices.Clone(r.retry[len(seeds):])
	for len(seeds) < n {
		seed, ok := c.opts.shard.seed(c.opts.seed, c.opts.runs, r.next)
		if !ok {
			break
		}
		r.next++
		seeds = append(seeds, seed)
	}
	return seeds
}

func (c *campaign) index(r *rowState) int {
	for i, x := range c.rows {
		if x == r {
			return i
		}
	}
	panic("fuzzrun: row not in campaign")
}

// busy returns the number of workers running a job.
func (c *campaign) busy() int {
	n := 0
	for _, s := range c.slots {
		if s.job != nil {
			n++
		}
	}
	return n
}

// handle takes a worker's event. Events of workers the campaign has given
// up on, and of jobs it no longer waits for, are ignored.
func (c *campaign) handle(ev event) {
	s, ok := c.slots[ev.worker]
	switch {
	case !ok:
		return
	case ev.broken:
		// Not a finding of the run: this program and its worker disagree,
		// and no more of a campaign's results can be trusted.
		fmt.Fprintf(c.stderr, "fuzzrun: %v\n", ev.gone)
		delete(c.slots, ev.worker)
		if !c.brokenProtocol {
			c.noRespawn, c.brokenProtocol, c.stopping = ev.gone.Error(), true, true
		}
		return
	case ev.gone != nil && s.job != nil:
		verdict, summary := VerdictCrash, fmt.Sprintf("the worker died during the run: %v", ev.gone)
		if ev.cause.oom {
			verdict = VerdictOOM
		}
		if ev.cause.fatal != "" {
			summary = fmt.Sprintf("the worker died during the run (%v): %s", ev.gone, ev.cause.fatal)
		}
		c.lose(ev.worker, s, verdict, summary, ev.cause.stack)
		return
	case ev.gone != nil:
		delete(c.slots, ev.worker)
		c.respawn()
		return
	case s.job == nil || ev.res.Job != s.job.ID:
		return
	case ev.res.Done:
		r := c.rows[s.job.Row]
		if r.res.Error == "" {
			r.retry = append(slices.Clone(s.job.Seeds[s.pos:]), r.retry...)
		}
		s.job = nil
		return
	}
	r := c.rows[s.job.Row]
	now := time.Now()
	r.spent += now.Sub(s.lastAt)
	s.pos++
	s.lastAt = now
	c.runs++
	r.res.Runs++
	switch {
	case ev.res.Error != "":
		r.res.Error = ev.res.Error
	case ev.res.Finding != nil:
		c.found(r, ev.res.Finding)
	case ev.res.ConvergeTime != nil:
		r.res.converged(*ev.res.ConvergeTime)
	}
}

// lose gives up on worker id and its run: the run is a finding of its own
// (a hang or a crash, replayable by seed), the rest of its job is queued
// again, and the worker is killed and, unless the campaign is stopping,
// replaced.
func (c *campaign) lose(id int, s *slot, verdict, summary string, details []string) {
	delete(c.slots, id)
	s.w.kill()
	if s.job != nil && s.pos < len(s.job.Seeds) {
		j := s.job
		r := c.rows[j.Row]
		r.spent += time.Since(s.lastAt)
		c.runs++
		r.res.Runs++
		seed := j.Seeds[s.pos]
		r.retry = append(slices.Clone(j.Seeds[s.pos+1:]), r.retry...)
		f := lost(j, seed, verdict, summary, details)
		f.ReplaySeed = seedCommand(j.Scenario, r.row.Mix, j.strategy(), seed)
		if j.strategy().KeepsCorpus() {
			// The run mutated the worker's corpus, gone with the worker:
			// its seed alone does not make it again (docs/design.md,
			// "Coverage-guided search").
			f.ReplaySeed = ""
		}
		if planRun(j.PlanFrom, seed, properties.MaxPlannedRuns(r.row.Mix)) > 0 {
			// The seed may stand for a run of the row's plan, which only
			// the worker knew the length of: a seed replay would make
			// rapid's draw instead (docs/design.md, "The plan in
			// campaigns"). The same campaign makes it again.
			f.ReplaySeed = ""
			f.Report += "this seed may be a run of the faults planned from the reference run, which a seed replay does not make; run the campaign again with the same -seed, -runs and -shard to make it again\n"
		}
		if verdict == VerdictHang && f.ReplaySeed != "" {
			f.RunTimeout = c.opts.runTimeout.Seconds()
			// The seed replay stops at the same bound and says so.
			f.ReplaySeed += fmt.Sprintf(" -run-timeout %v", c.opts.runTimeout)
		}
		c.found(r, f)
		if _, inProc := s.w.(*inProcWorker); inProc {
			c.noRespawn = "a run hung in this process (-workers 1), and it holds rapid's settings: no other run can start; use -workers 2 or more to have hung runs killed"
			c.stopping = true
		}
	}
	c.respawn()
}

// respawn replaces a lost worker while the campaign goes on, rows in
// overtime included.
func (c *campaign) respawn() {
	if c.interrupted || c.noRespawn != "" || c.stopping && c.rowsInOvertime() == 0 {
		return
	}
	if err := c.spawn(); err != nil {
		fmt.Fprintf(c.stderr, "fuzzrun: cannot replace a worker: %v\n", err)
		if len(c.slots) == 0 {
			c.noRespawn = err.Error()
			c.stopping = true
		}
	}
}

// found records a confirmed finding and writes it out at once. The first
// finding or page that cannot be written to -out is reported, and stops
// the campaign: a full disk would fail every later one too (exit 2).
func (c *campaign) found(r *rowState, f *Finding) {
	f.Expected = r.row.expects(f.Verdict)
	r.res.failed(f)
	st, isNew, err := c.store.add(f)
	if err != nil {
		if c.writeErrors == 0 {
			fmt.Fprintf(c.stderr, "fuzzrun: cannot write finding %s: %v; stopping the campaign\n", st.path, err)
		}
		c.writeErrors++
		c.stopping = true
	}
	c.progress.found(st, isNew, f)
}

// checkHangs kills the workers whose run has taken longer than
// -run-timeout.
func (c *campaign) checkHangs() {
	for id, s := range c.slots {
		if s.job != nil && time.Since(s.lastAt) > c.opts.runTimeout {
			c.lose(id, s, VerdictHang, fmt.Sprintf("the run did not finish within %v (-run-timeout); its worker was killed", c.opts.runTimeout), nil)
		}
	}
}

// checkAbandon kills the runs still in flight once the grace period after
// a signal is over.
func (c *campaign) checkAbandon() {
	if c.abandonAt.IsZero() || time.Now().Before(c.abandonAt) {
		return
	}
	for id, s := range c.slots {
		if s.job != nil {
			c.abandoned++
			delete(c.slots, id)
			s.w.kill()
		}
	}
}

// shutdown stops the idle workers: each finishes and exits when its stdin
// closes; one that does not within abandonGrace is killed.
func (c *campaign) shutdown() {
	for _, s := range c.slots {
		s.w.close()
	}
	timer := time.NewTimer(abandonGrace)
	defer timer.Stop()
	for len(c.slots) > 0 {
		select {
		case ev := <-c.evs.c:
			if ev.gone != nil {
				delete(c.slots, ev.worker)
			}
		case <-timer.C:
			for id, s := range c.slots {
				delete(c.slots, id)
				s.w.kill()
			}
		}
	}
	close(c.evs.quit)
}

// finish judges the rows, prints the results and returns the exit code.
func (c *campaign) finish() int {
	results := make([]RowResult, 0, len(c.rows))
	wrong, notShown := false, false
	for _, r := range c.rows {
		r.res.judge(r.row)
		notShown = notShown || r.res.NotShown
		wrong = wrong || !r.res.OK && !r.res.NotShown
		results = append(results, r.res)
	}
	code := ExitOK
	switch {
	case wrong:
		code = ExitUnexpected
	case notShown:
		code = ExitNotShown
	}
	if c.interrupted && c.runs == 0 {
		// Nothing was tested: that is not a pass.
		code = ExitUnexpected
	}
	if c.writeErrors > 0 || (c.noRespawn != "" && c.runs == 0) || c.brokenProtocol {
		code = ExitUsage
	}
	// The summary file is the last thing written: a shard killed before it
	// leaves findings and no summary, which -merge says.
	if c.opts.out != "" && c.writeErrors == 0 {
		if err := c.writeSummary(results, code); err != nil {
			fmt.Fprintf(c.stderr, "fuzzrun: writing the summary to %s: %v\n", c.opts.out, err)
			c.writeErrors++
			code = ExitUsage
		}
	}
	c.progress.end(results, code)
	return code
}
