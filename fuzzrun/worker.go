package fuzzrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

// Workers are separate processes: rapid reads its seed from process-global
// flags, so two searches with their own seeds cannot share a process, and
// a process can be killed when a run hangs. A worker is this same program
// re-executed with workerEnv set; ServeIfWorker, which Main calls first,
// serves as a worker when it sees it.
//
// The protocol has descriptors of its own, which user code does not
// write to by accident (docs/design.md, "Workers and their output"): the
// worker inherits the read end of a jobs pipe and the write end of a
// results pipe as extra files, named by workerFDsEnv. It writes a ready
// line on results, then reads jobs as JSON lines and writes a result line
// per seed and one at the end of each job; it exits when jobs closes. Its
// stdout and stderr both go to the campaign's stderr: what a controller
// prints, through fmt or a logger that captured os.Stdout at init, lands
// there. A line on results that is not a result is a broken protocol: the
// campaign names the worker, quotes the start of the line, and stops.
const (
	workerEnv = "CONVERGE_FUZZRUN_WORKER"
	// workerProtocol is workerEnv's value, versioned so that a mismatched
	// binary says so instead of misreading jobs. Version 2 moved jobs and
	// results off stdin and stdout.
	workerProtocol = "2"
	// workerFDsEnv names the worker's jobs and results descriptors, as
	// "3,4".
	workerFDsEnv = "CONVERGE_FUZZRUN_WORKER_FDS"
	// workerStartTimeout bounds how long a worker may take to say ready.
	workerStartTimeout = 30 * time.Second
	// workerWaitDelay bounds how long a worker's output is waited for once
	// it has exited: a process it started may hold its stderr open.
	workerWaitDelay = time.Second
	// maxResultLine bounds a result line: a finding is at most
	// MaxFindingSize as an indented file, and a line holds one.
	maxResultLine = MaxFindingSize + 1<<16
)

// ready is a worker's first line.
type ready struct {
	Ready    string `json:"ready"`
	Protocol string `json:"protocol"`
}

// workerFiles opens the descriptors workerFDsEnv names: jobs to read,
// results to write.
func workerFiles(spec string) (jobs, results *os.File, err error) {
	j, r, ok := strings.Cut(spec, ",")
	jfd, jerr := strconv.Atoi(j)
	rfd, rerr := strconv.Atoi(r)
	if !ok || jerr != nil || rerr != nil || jfd < 3 || rfd < 3 || jfd == rfd {
		return nil, nil, fmt.Errorf("%s=%q: want two descriptors above 2, as \"3,4\"", workerFDsEnv, spec)
	}
	return inheritedFile(jfd, "fuzzrun-jobs"), inheritedFile(rfd, "fuzzrun-results"), nil
}

// serveWorker is the worker's side: it runs jobs from in and writes
// results to out. Signals are the parent's business: a worker ignores
// SIGINT, SIGTERM and SIGHUP (a terminal sends them to the whole process
// group) and stops when the parent closes its jobs or kills it.
func serveWorker(in io.Reader, out io.Writer, scenarios []properties.Scenario, wrap func(func(*rapid.T)) func(*rapid.T)) int {
	signal.Ignore(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	enc := json.NewEncoder(out)
	if err := enc.Encode(ready{Ready: "fuzzrun worker", Protocol: workerProtocol}); err != nil {
		return ExitUsage
	}
	dec := json.NewDecoder(in)
	ps := newPlans(scenarios, wrap)
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
	// broken is set, with gone, when the worker broke the protocol: it
	// wrote a line that is not a result. Its runs cannot be trusted, and
	// that is no finding of the run it was doing.
	broken bool
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
	id      int
	cmd     *exec.Cmd
	jobs    *os.File
	results *os.File
	enc     *json.Encoder
	// done is closed once the worker has been waited for.
	done chan struct{}
	log  *crashLog
}

// procSpec is how to start a worker process: exe with args (rapid's
// flags), and env on top of this process's environment. argv0, when set,
// is the worker's os.Args[0] (a test binary's worker names its program as
// the campaign does, in the replay lines it writes).
type procSpec struct {
	exe   string
	argv0 string
	args  []string
	env   []string
}

// startProc starts a worker subprocess as spec says and waits until it is
// ready. Its results go to events; its stdout and stderr (so anything
// user code prints) to stderr.
func startProc(id int, spec procSpec, stderr io.Writer, evs events) (*procWorker, error) {
	exe := spec.exe
	jobsR, jobsW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	resultsR, resultsW, err := os.Pipe()
	if err != nil {
		_, _ = jobsR.Close(), jobsW.Close()
		return nil, err
	}
	cmd := exec.Command(exe, spec.args...)
	if spec.argv0 != "" {
		cmd.Args[0] = spec.argv0
	}
	cmd.Env = append(append(os.Environ(), spec.env...), workerFDsEnv+"=3,4")
	cmd.ExtraFiles = []*os.File{jobsR, resultsW} // fds 3 and 4
	log := &crashLog{}
	// One writer for both, so that they share a pipe and keep their order.
	sink := io.MultiWriter(stderr, log)
	cmd.Stdout, cmd.Stderr = sink, sink
	cmd.WaitDelay = workerWaitDelay
	err = cmd.Start()
	// The worker's ends are the worker's: results end when it exits.
	_, _ = jobsR.Close(), resultsW.Close()
	if err != nil {
		_, _ = jobsW.Close(), resultsR.Close()
		// Windows, say, passes no extra files.
		return nil, fmt.Errorf("starting worker %s: %w; -workers 1 runs in this process, without one", exe, err)
	}
	w := &procWorker{id: id, cmd: cmd, jobs: jobsW, results: resultsR, enc: json.NewEncoder(jobsW), done: make(chan struct{}), log: log}
	hello := make(chan error, 1)
	go w.read(hello, evs)
	timer := time.NewTimer(workerStartTimeout)
	defer timer.Stop()
	select {
	case err = <-hello:
	case <-timer.C:
		err = fmt.Errorf("not ready after %v", workerStartTimeout)
		w.stop()
	}
	if err != nil {
		<-w.done
		_ = jobsW.Close()
		return nil, fmt.Errorf("worker %s did not start (%v): a program that runs workers must call fuzzrun.Main, or fuzzrun.ServeIfWorker first (in TestMain for a test binary); or use -workers 1", exe, err)
	}
	return w, nil
}

// read reads the worker's results until they end: its ready line, to
// hello, then its results, to evs. When the worker exits, or writes a
// line that is not what the protocol says, read kills it (it may live on
// after closing its results), waits for it, and sends that it is gone.
func (w *procWorker) read(hello chan<- error, evs events) {
	defer w.results.Close()
	r := bufio.NewReader(w.results)
	line, err := w.readLine(r)
	if err == nil {
		var rd ready
		err = w.decode(line, "ready line", &rd, func() error {
			if rd.Protocol != workerProtocol {
				return fmt.Errorf("speaks worker protocol %q, want %q", rd.Protocol, workerProtocol)
			}
			return nil
		})
	}
	if err != nil {
		w.end()
		if !errors.Is(err, errBrokenProtocol) {
			err = fmt.Errorf("%v before it was ready", exitError(w.cmd))
		}
		hello <- err
		return
	}
	hello <- nil
	for {
		line, err := w.readLine(r)
		if err == nil {
			var res result
			if err = w.decode(line, "result", &res, func() error {
				if res.Job <= 0 {
					return errors.New("it names no job")
				}
				return nil
			}); err == nil {
				evs.send(event{worker: w.id, res: &res})
				continue
			}
		}
		broken := errors.Is(err, errBrokenProtocol)
		w.end()
		if !broken {
			// The results ended: the worker exited, or closed them.
			err = exitError(w.cmd)
		}
		c := w.log.cause()
		if w.cmd.ProcessState.ExitCode() == exitOOM {
			c.oom = true
		}
		evs.send(event{worker: w.id, gone: err, broken: broken, cause: c})
		return
	}
}

// end kills the worker, if it still runs, and waits for it, so that all
// of its stderr is in its log.
func (w *procWorker) end() {
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
	close(w.done)
}

// errBrokenProtocol marks the errors of a worker that wrote what the
// protocol does not allow.
var errBrokenProtocol = errors.New("broke the protocol")

// decode reads line, a JSON object with v's fields and no others (a
// "ready line" or a "result", says what), into v, and checks it. An error
// names the worker and quotes the line's start.
func (w *procWorker) decode(line []byte, what string, v any, check func() error) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one value on the line")
	}
	if err == nil {
		err = check()
	}
	if err == nil {
		return nil
	}
	return fmt.Errorf("worker %d (pid %d) %w: it wrote a line of %d bytes that is not a %s: %s: %v", w.id, w.cmd.Process.Pid, errBrokenProtocol, len(line), what, echo.Quote(string(line)), err)
}

// readLine reads a line of results; a line too long broke the protocol.
func (w *procWorker) readLine(r *bufio.Reader) ([]byte, error) {
	line, err := readLine(r)
	if errors.Is(err, errLineTooLong) {
		return nil, fmt.Errorf("worker %d (pid %d) %w: it wrote a line longer than %d bytes: %s", w.id, w.cmd.Process.Pid, errBrokenProtocol, maxResultLine, echo.Quote(string(line)))
	}
	return line, err
}

// errLineTooLong is a line past maxResultLine.
var errLineTooLong = errors.New("line too long")

// readLine reads a line of at most maxResultLine bytes, without its
// newline; past that, it returns what it read with errLineTooLong. At the
// end of the results, a line cut short is dropped: the worker died
// writing it.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxResultLine {
			return line, errLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}

// exitError describes how a worker ended, once it has been waited for.
func exitError(cmd *exec.Cmd) error {
	if cmd.ProcessState != nil && !cmd.ProcessState.Success() {
		return fmt.Errorf("worker exited: %s", cmd.ProcessState)
	}
	return errors.New("worker exited")
}

func (w *procWorker) start(j *job) error {
	w.log.reset()
	return w.enc.Encode(j)
}

func (w *procWorker) kill() {
	w.stop()
	<-w.done
}

// stop kills the worker and closes its results, which a process it
// started before it could mark them close-on-exec may hold open: read
// then ends, and waits for it.
func (w *procWorker) stop() {
	_ = w.cmd.Process.Kill()
	_ = w.results.Close()
}

func (w *procWorker) close() { _ = w.jobs.Close() }

// inProcWorker runs jobs in this process, one goroutine, for -workers 1.
// It cannot be killed: a hung run is abandoned with its goroutine, and
// since it holds rapid's flags no other run can start in this process.
type inProcWorker struct {
	jobs chan *job
	once sync.Once
}

func startInProc(id int, scenarios []properties.Scenario, wrap func(func(*rapid.T)) func(*rapid.T), evs events, stderr io.Writer) *inProcWorker {
	w := &inProcWorker{jobs: make(chan *job)}
	go func() {
		warned := false
		ps := newPlans(scenarios, wrap)
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
