package fuzzrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/converge-sim/converge/properties"
)

// Workers are separate processes: rapid reads its seed from process-global
// flags, so two searches with their own seeds cannot share a process, and
// a process can be killed when a run hangs. A worker is this same program
// re-executed with workerEnv set; ServeIfWorker, which Main calls first,
// serves as a worker when it sees it. A worker writes a ready line on
// stdout, then reads jobs as JSON lines on stdin and writes a result line
// per seed and one at the end of each job; it exits when stdin closes.
const (
	workerEnv = "CONVERGE_FUZZRUN_WORKER"
	// workerProtocol is workerEnv's value, versioned so that a mismatched
	// binary says so instead of misreading jobs.
	workerProtocol = "1"
	// workerStartTimeout bounds how long a worker may take to say ready.
	workerStartTimeout = 30 * time.Second
)

// ready is a worker's first line.
type ready struct {
	Ready    string `json:"ready"`
	Protocol string `json:"protocol"`
}

// serveWorker is the worker's side: it runs jobs from in and writes
// results to out. Signals are the parent's business: a worker ignores
// SIGINT and SIGTERM (a terminal sends them to the whole process group)
// and stops when the parent closes its stdin or kills it.
func serveWorker(in io.Reader, out io.Writer, scenarios []properties.Scenario) int {
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	enc := json.NewEncoder(out)
	if err := enc.Encode(ready{Ready: "fuzzrun worker", Protocol: workerProtocol}); err != nil {
		return ExitUsage
	}
	dec := json.NewDecoder(in)
	ps := newPlans(scenarios)
	for {
		var j job
		if err := dec.Decode(&j); err != nil {
			if errors.Is(err, io.EOF) {
				return ExitOK
			}
			fmt.Fprintf(os.Stderr, "fuzzrun worker: reading a job: %v\n", err)
			return ExitUsage
		}
		var werr error
		hung := runJob(&j, ps, func(r result) {
			if werr == nil {
				werr = enc.Encode(r)
			}
		})
		switch {
		case werr != nil:
			return ExitUsage // the parent is gone
		case hung:
			// The hung run's goroutine may spin for good: end the
			// process, and the campaign starts a fresh worker.
			return ExitOK
		}
	}
}

// worker runs one job at a time for the campaign and reports on events.
type worker interface {
	// start hands the worker a job; it must be idle.
	start(j *job) error
	// kill stops the worker for good, abandoning its job.
	kill()
	// close lets the worker finish its job and stop.
	close()
}

// event is what a worker reports: a result, or that it is gone.
type event struct {
	worker int
	res    *result
	// gone is set when the worker stopped: it exited, crashed or broke
	// the protocol.
	gone error
	// cause is why it died, from its stderr, when gone is set.
	cause cause
}

// events carries workers' events to the campaign until it quits; a
// worker that reports after that (an abandoned run that ends after all)
// is not waited for.
type events struct {
	c    chan event
	quit chan struct{}
}

func (e events) send(ev event) {
	select {
	case e.c <- ev:
	case <-e.quit:
	}
}

// procWorker is a worker subprocess.
type procWorker struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	enc  *json.Encoder
	done chan struct{}
	log  *crashLog
}

// startProc starts a worker subprocess of exe with args (rapid's flags)
// and waits until it is ready. Its results go to events; its stderr (and
// anything user code prints) to stderr.
func startProc(id int, exe string, args []string, stderr io.Writer, evs events) (*procWorker, error) {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), workerEnv+"="+workerProtocol)
	log := &crashLog{}
	cmd.Stderr = io.MultiWriter(stderr, log)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting worker %s: %w", exe, err)
	}
	w := &procWorker{cmd: cmd, in: in, enc: json.NewEncoder(in), done: make(chan struct{}), log: log}
	dec := json.NewDecoder(out)
	hello := make(chan error, 1)
	go func() {
		var r ready
		err := dec.Decode(&r)
		if err == nil && r.Protocol != workerProtocol {
			err = fmt.Errorf("speaks worker protocol %q, want %q", r.Protocol, workerProtocol)
		}
		hello <- err
		if err != nil {
			return
		}
		for {
			var res result
			if err := dec.Decode(&res); err != nil {
				_ = cmd.Wait() // and so all of its stderr is in log
				close(w.done)
				c := log.cause()
				if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == exitOOM {
					c.oom = true
				}
				evs.send(event{worker: id, gone: exitError(cmd, err), cause: c})
				return
			}
			evs.send(event{worker: id, res: &res})
		}
	}()
	timer := time.NewTimer(workerStartTimeout)
	defer timer.Stop()
	select {
	case err = <-hello:
	case <-timer.C:
		err = fmt.Errorf("not ready after %v", workerStartTimeout)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("worker %s did not start (%v): a program that runs workers must call fuzzrun.Main, or fuzzrun.ServeIfWorker first (in TestMain for a test binary); or use -workers 1", exe, err)
	}
	return w, nil
}

// exitError describes how a worker ended.
func exitError(cmd *exec.Cmd, err error) error {
	if cmd.ProcessState != nil && !cmd.ProcessState.Success() {
		return fmt.Errorf("worker exited: %s", cmd.ProcessState)
	}
	if errors.Is(err, io.EOF) {
		return errors.New("worker exited")
	}
	return fmt.Errorf("worker broke the protocol: %w", err)
}

func (w *procWorker) start(j *job) error {
	w.log.reset()
	return w.enc.Encode(j)
}

func (w *procWorker) kill() {
	_ = w.cmd.Process.Kill()
	<-w.done
}

func (w *procWorker) close() { _ = w.in.Close() }

// inProcWorker runs jobs in this process, one goroutine, for -workers 1.
// It cannot be killed: a hung run is abandoned with its goroutine, and
// since it holds rapid's flags no other run can start in this process.
type inProcWorker struct {
	jobs chan *job
	once sync.Once
}

func startInProc(id int, scenarios []properties.Scenario, evs events, stderr io.Writer) *inProcWorker {
	w := &inProcWorker{jobs: make(chan *job)}
	go func() {
		warned := false
		ps := newPlans(scenarios)
		for j := range w.jobs {
			hung := runJob(j, ps, func(r result) { evs.send(event{worker: id, res: &r}) })
			if hung && !warned {
				warned = true
				fmt.Fprintln(stderr, "fuzzrun: a hung run's goroutine stays in this process for good (-workers 1 runs in-process, and Go cannot stop a goroutine); use -workers 2 or more to have it ended with its worker")
			}
		}
		evs.send(event{worker: id, gone: errors.New("worker stopped")})
	}()
	return w
}

func (w *inProcWorker) start(j *job) error {
	w.jobs <- j
	return nil
}

func (w *inProcWorker) kill() { w.close() }

func (w *inProcWorker) close() { w.once.Do(func() { close(w.jobs) }) }
