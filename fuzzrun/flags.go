package fuzzrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/properties"
)

// DefaultDuration is the budget of a campaign run with neither -duration
// nor -runs.
const DefaultDuration = 10 * time.Second

// DefaultRunTimeout is how long one run, shrinking included, may take
// before its worker is killed and the run reported as a hang. It is well
// above rapid's default shrink time (30 s).
const DefaultRunTimeout = 2 * time.Minute

// Bounds of numeric flags, checked before any work starts.
const (
	// maxWorkersPerCPU bounds -workers without -force-workers: more
	// workers than a few per CPU only add memory and start-up time.
	maxWorkersPerCPU = 4
	// MaxWorkers bounds -workers even with -force-workers.
	MaxWorkers = 1024
	// MaxRuns bounds -runs.
	MaxRuns = 1 << 40
	// MaxDuration bounds -duration.
	MaxDuration = 30 * 24 * time.Hour
	// maxRapidSteps bounds -rapid.steps, rapid's mean number of Repeat
	// actions (converge's searches call none: the flag passes through).
	maxRapidSteps = 1 << 20
)

// mode is what one invocation does.
type mode int

const (
	modeCampaign mode = iota
	modeList
	modeReplayFile
	modeReplaySeed
	modeExplore
	modeMerge
)

type options struct {
	mode      mode
	duration  time.Duration // 0: no wall-clock budget (-runs only, or an exploration's -duration 0)
	runs      int           // seeds per row; 0: unbounded
	workers   int
	scenarios []properties.Scenario
	mix       faults.Mix
	seed      uint64
	// noPlan is -no-plan: a random campaign's rows run seeds alone,
	// without the runs of the plan between them (job.PlanFrom).
	noPlan   bool
	strategy properties.Strategy
	// exploreFaults is -max-faults, for -strategy exhaustive; its depth
	// is strategy.Depth.
	exploreFaults int
	// exploreInputs is -inputs, the specs an exploration's transitions
	// are made of (properties.ExploreOptions.Inputs).
	exploreInputs int
	// maxStates is -max-states, the most states an exploration's cache
	// records (0: properties.DefaultExploreMaxStates).
	maxStates  int
	shard      Shard
	out        string
	replay     string
	traceJSON  bool
	html       string
	json       bool
	runTimeout time.Duration
	// workerMemory is each worker process's memory limit, in MiB.
	workerMemory int
	// rapidArgs are the rapid flags given, passed on to workers.
	rapidArgs []string
	// mergeDirs are -merge's shard directories.
	mergeDirs []string
	// host is set when the program is a test binary that MainTest made
	// fuzzrun: runs go in testing/synctest bubbles, workers are the test
	// binary re-executed.
	host *testHost
}

// parse parses and validates the command line. getenv reads the shard
// from the environment when -shard is not given.
func parse(args []string, stderr io.Writer, all []properties.Scenario, getenv func(string) string) (*options, error) {
	fs := flag.NewFlagSet("fuzzrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		opts      options
		scenario  string
		faultList string
		strategy  string
		depth     int
		explore   int
		deviate   int
		shard     string
		list      bool
		force     bool
		merge     bool
	)
	fs.DurationVar(&opts.duration, "duration", DefaultDuration, fmt.Sprintf("wall-clock budget of the campaign (at most %v); none when only -runs is given. With -strategy exhaustive, of each row's exploration, which stops deepening at the first depth it cannot finish in time (0: none, explore to -depth however long it takes)", MaxDuration))
	fs.IntVar(&opts.runs, "runs", 0, fmt.Sprintf("run `N` seeds of each row, -seed … -seed+N-1, split among the shards (0 to %d; 0: until -duration)", int64(MaxRuns)))
	fs.IntVar(&opts.workers, "workers", runtime.NumCPU(), fmt.Sprintf("worker processes running seeds in parallel (1 runs in this process); with -strategy exhaustive, goroutines exploring a row's fault trees side by side; at most %d per CPU without -force-workers", maxWorkersPerCPU))
	fs.BoolVar(&force, "force-workers", false, fmt.Sprintf("allow -workers beyond %d per CPU (up to %d)", maxWorkersPerCPU, MaxWorkers))
	fs.StringVar(&scenario, "scenario", "", "comma-separated scenarios to run (default: all)")
	fs.StringVar(&faultList, "faults", "", "comma-separated fault kinds: run this one mix instead of each scenario's declared mixes")
	fs.Uint64Var(&opts.seed, "seed", 1, "first seed; with a single -scenario and no -duration, -runs or -shard, replay this seed (re-run and re-shrink it) and print its trace")
	fs.BoolVar(&opts.noPlan, "no-plan", false, "with -strategy random: run seeds alone, without the single faults planned from each row's reference run in between (every other of a row's first runs; docs/design.md, \"The plan in campaigns\")")
	fs.StringVar(&strategy, "strategy", properties.StrategyRandom, "search strategy: random, pct (probabilistic concurrency testing), coverage (coverage-guided: a corpus of runs that reached new coverage, mutated) or exhaustive (bounded exhaustive exploration)")
	fs.IntVar(&explore, "depth", DefaultExploreDepth, fmt.Sprintf("with -strategy exhaustive: explore every choice of the first `D` decisions (1 to %d)", properties.MaxExploreDepth))
	fs.IntVar(&deviate, "deviations", 0, "with -strategy exhaustive: let at most `K` of the -depth decisions leave the canonical schedule, the others take its choice (0: no bound; at most -depth)")
	fs.IntVar(&opts.exploreInputs, "inputs", properties.DefaultExploreInputs, fmt.Sprintf("with -strategy exhaustive, for a scenario with state-transition inputs: apply every sequence of up to its most transitions among the first `N` specs its generator draws (0 to %d; 0: none)", properties.MaxExploreInputs))
	fs.IntVar(&opts.maxStates, "max-states", 0, fmt.Sprintf("with -strategy exhaustive: the most states a row's cache records (0 to %d; 0: %d, about 3.5 GB), past which new states are explored without being recorded", properties.MaxExploreMaxStates, properties.DefaultExploreMaxStates))
	fs.IntVar(&opts.exploreFaults, "max-faults", properties.DefaultExploreFaults, fmt.Sprintf("with -strategy exhaustive: inject at most `F` faults per run (1 to %d; -faults none for none)", properties.MaxExploreFaults))
	fs.IntVar(&depth, "pct-depth", 0, fmt.Sprintf("PCT's bug depth `d`: d-1 priority change points (1 to %d; default %d)", properties.MaxPCTDepth, properties.DefaultPCTDepth))
	fs.StringVar(&shard, "shard", "", fmt.Sprintf("run shard `i/n` of the seed space (default: from %s and %s, else 0/1)", EnvShardIndex, EnvShardCount))
	fs.StringVar(&opts.out, "out", "", "write each finding to its own JSON file in `DIR` the moment it is confirmed")
	fs.StringVar(&opts.replay, "replay", "", "replay the finding in `FILE` exactly and print its trace")
	fs.StringVar(&opts.html, "html", "", "with -replay or a seed replay: also write the run's timeline page (one self-contained HTML file) to `FILE`; a run that passes gets one too, marked 'No property violated'")
	fs.BoolVar(&opts.traceJSON, "trace-json", false, "with -replay or a seed replay: print the trace as JSON lines on stdout, the report on stderr")
	fs.BoolVar(&opts.json, "json", false, "print progress, findings, rows and a summary as JSON lines (with -strategy exhaustive: an event per row, then a summary)")
	fs.BoolVar(&merge, "merge", false, "fold the -out directories of a campaign's shards, given as arguments, into one directory (-out) and one summary: fuzzrun -merge -out DIR SHARD_DIR...")
	fs.BoolVar(&list, "list", false, "list scenarios, fault kinds, strategies and what each scenario must show")
	fs.DurationVar(&opts.runTimeout, "run-timeout", DefaultRunTimeout, fmt.Sprintf("kill a worker whose run (shrinking included) takes longer, and report a hang (at most %v)", maxRunTimeout*time.Second))
	fs.IntVar(&opts.workerMemory, "worker-memory", DefaultWorkerMemory, fmt.Sprintf("memory limit of each worker process in `MiB` (%d to %d): a run whose heap grows past it is an oom finding", minWorkerMemory, maxWorkerMemory))
	// rapid's own flags (-rapid.shrinktime, …) pass through to rapid.
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: fuzzrun [flags]\n\nRuns every scenario under each fault mix it declares and checks that it shows what it must.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		set[f.Name] = true
		if strings.HasPrefix(f.Name, "rapid.") {
			opts.rapidArgs = append(opts.rapidArgs, "-"+f.Name+"="+f.Value.String())
		}
	})
	if merge {
		return parseMerge(&opts, fs, set)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (shard directories are for -merge)", fs.Arg(0))
	}

	var err error
	exhaustive := strategy == properties.StrategyExhaustive
	switch {
	case exhaustive && set["pct-depth"]:
		return nil, errors.New("-pct-depth applies to -strategy pct; -strategy exhaustive takes -depth")
	case !exhaustive && (set["depth"] || set["max-faults"] || set["deviations"] || set["inputs"] || set["max-states"]):
		return nil, fmt.Errorf("-depth, -max-faults, -deviations, -inputs and -max-states apply to -strategy %s", properties.StrategyExhaustive)
	case opts.exploreInputs < 0 || opts.exploreInputs > properties.MaxExploreInputs:
		return nil, fmt.Errorf("-inputs %d: must be in [0, %d]", opts.exploreInputs, properties.MaxExploreInputs)
	case opts.maxStates < 0 || opts.maxStates > properties.MaxExploreMaxStates:
		return nil, fmt.Errorf("-max-states %d: must be in [0, %d] (0: %d)", opts.maxStates, properties.MaxExploreMaxStates, properties.DefaultExploreMaxStates)
	case set["pct-depth"] && (depth < 1 || depth > properties.MaxPCTDepth):
		// 0 is not taken for the default: a flag given is a flag meant.
		return nil, fmt.Errorf("-pct-depth %d: must be in [1, %d] (default %d)", depth, properties.MaxPCTDepth, properties.DefaultPCTDepth)
	case exhaustive && (opts.exploreFaults < 1 || opts.exploreFaults > properties.MaxExploreFaults):
		return nil, fmt.Errorf("-max-faults %d: must be in [1, %d] (-faults none explores without faults)", opts.exploreFaults, properties.MaxExploreFaults)
	case exhaustive:
		depth = explore
	}
	if opts.noPlan && strategy != properties.StrategyRandom {
		return nil, fmt.Errorf("-no-plan applies to -strategy %s: only its campaigns run the plan", properties.StrategyRandom)
	}
	if opts.strategy, err = properties.ParseStrategy(strategy, depth); err != nil {
		if exhaustive {
			return nil, fmt.Errorf("-depth: %w", err)
		}
		return nil, fmt.Errorf("-strategy: %w", err)
	}
	if exhaustive {
		opts.strategy.Deviations = deviate
		if err := opts.strategy.Validate(); err != nil {
			return nil, fmt.Errorf("-deviations: %w", err)
		}
	}
	maxWorkers := MaxWorkers
	if !force {
		maxWorkers = min(MaxWorkers, maxWorkersPerCPU*runtime.NumCPU())
	}
	switch {
	case set["rapid.seed"]:
		return nil, errors.New("-rapid.seed: fuzzrun sets rapid's seed of each run from -seed; use -seed")
	case set["rapid.checks"]:
		return nil, errors.New("-rapid.checks: fuzzrun runs one check per seed; use -runs")
	case set["replay"] && opts.replay == "":
		return nil, errors.New("-replay needs a finding file")
	case opts.workerMemory < minWorkerMemory || opts.workerMemory > maxWorkerMemory:
		return nil, fmt.Errorf("-worker-memory %d: must be in [%d, %d] MiB", opts.workerMemory, minWorkerMemory, maxWorkerMemory)
	case opts.runs > MaxRuns:
		return nil, fmt.Errorf("-runs %d: at most %d", opts.runs, int64(MaxRuns))
	case opts.workers > maxWorkers && force:
		return nil, fmt.Errorf("-workers %d: at most %d", opts.workers, maxWorkers)
	case opts.workers > maxWorkers:
		return nil, fmt.Errorf("-workers %d: at most %d (%d per CPU, %d CPUs); add -force-workers for up to %d", opts.workers, maxWorkers, maxWorkersPerCPU, runtime.NumCPU(), MaxWorkers)
	case opts.runs > 0 && opts.seed > math.MaxUint64-uint64(opts.runs-1):
		return nil, fmt.Errorf("-seed %d with -runs %d: the last seed would pass %d", opts.seed, opts.runs, uint64(math.MaxUint64))
	case opts.duration < 0 || opts.duration == 0 && !exhaustive:
		return nil, fmt.Errorf("-duration must be positive, got %v (0, no budget, applies to -strategy exhaustive)", opts.duration)
	case opts.duration > MaxDuration:
		return nil, fmt.Errorf("-duration %v: at most %v", opts.duration, MaxDuration)
	case opts.runs < 0:
		return nil, fmt.Errorf("-runs must not be negative, got %d", opts.runs)
	case opts.workers < 1:
		return nil, fmt.Errorf("-workers must be at least 1, got %d", opts.workers)
	case opts.seed == 0:
		return nil, errors.New("-seed must be at least 1 (rapid reads seed 0 as \"pick one at random\")")
	case opts.runTimeout <= 0:
		return nil, fmt.Errorf("-run-timeout must be positive, got %v", opts.runTimeout)
	case opts.runTimeout > maxRunTimeout*time.Second:
		return nil, fmt.Errorf("-run-timeout %v: at most %v", opts.runTimeout, maxRunTimeout*time.Second)
	case set["rapid.shrinktime"] && (flagValue[time.Duration](fs, "rapid.shrinktime") < 0 || flagValue[time.Duration](fs, "rapid.shrinktime") > maxRunTimeout*time.Second):
		return nil, fmt.Errorf("-rapid.shrinktime %v: must be in [0s, %v]", flagValue[time.Duration](fs, "rapid.shrinktime"), maxRunTimeout*time.Second)
	case set["rapid.steps"] && (flagValue[int](fs, "rapid.steps") < 0 || flagValue[int](fs, "rapid.steps") > maxRapidSteps):
		return nil, fmt.Errorf("-rapid.steps %d: must be in [0, %d]", flagValue[int](fs, "rapid.steps"), maxRapidSteps)
	case len(all) == 0:
		return nil, errors.New("no scenarios to run")
	}
	// -runs N alone runs N seeds however long they take; -runs 0 means
	// "until -duration", the default one when none is given.
	if set["runs"] && !set["duration"] && opts.runs > 0 {
		opts.duration = 0
	}
	for _, sc := range all {
		if err := sc.Validate(); err != nil {
			return nil, err
		}
	}
	opts.scenarios = all
	if scenario != "" {
		opts.scenarios = nil
		seen := map[string]bool{}
		for _, name := range strings.Split(scenario, ",") {
			name = strings.TrimSpace(name)
			sc, ok := find(all, name)
			if !ok {
				return nil, fmt.Errorf("unknown scenario %s (fuzzrun -list shows them)", echo.Quote(name))
			}
			// Refused rather than merged: a name given twice is a typo
			// for another, or a script that doubles every count.
			if seen[name] {
				return nil, fmt.Errorf("-scenario: %s is given twice", name)
			}
			seen[name] = true
			opts.scenarios = append(opts.scenarios, sc)
		}
	}
	if faultList != "" {
		if opts.mix, err = faults.ParseMix(faultList); err != nil {
			return nil, err
		}
	}

	campaignOnly := []string{"duration", "runs", "workers", "force-workers", "worker-memory", "shard", "out", "json", "no-plan"}
	switch {
	case list:
		opts.mode = modeList
		return &opts, nil
	case set["replay"]:
		opts.mode = modeReplayFile
		if bad := anySet(set, append(campaignOnly, "scenario", "faults", "seed", "strategy", "pct-depth")); bad != "" {
			return nil, fmt.Errorf("-replay replays the file as recorded: it takes no -%s", bad)
		}
		return &opts, nil
	case exhaustive:
		opts.mode = modeExplore
		if bad := anySet(set, []string{"runs", "worker-memory", "shard", "seed", "trace-json", "html"}); bad != "" {
			return nil, fmt.Errorf("-strategy exhaustive explores in this process, without seeds: it takes no -%s (-duration bounds each row's exploration)", bad)
		}
		return &opts, nil
	case set["seed"] && len(opts.scenarios) == 1 && !set["duration"] && !set["runs"] && !set["shard"]:
		opts.mode = modeReplaySeed
		if bad := anySet(set, campaignOnly); bad != "" {
			return nil, fmt.Errorf("a seed replay (-scenario and -seed alone) takes no -%s; add -duration or -runs for a campaign", bad)
		}
		return &opts, nil
	}
	if opts.traceJSON {
		return nil, errors.New("-trace-json applies to a replay (-replay FILE, or -scenario S -seed N)")
	}
	if opts.html != "" {
		return nil, errors.New("-html applies to a replay (-replay FILE, or -scenario S -seed N); a campaign with -out writes a page beside each finding")
	}
	if shard != "" {
		opts.shard, err = ParseShard(shard)
		if err != nil {
			return nil, fmt.Errorf("-shard: %w", err)
		}
	} else if opts.shard, err = shardFromEnv(getenv); err != nil {
		return nil, err
	}
	// A shard without a seed would run nothing and call that a failure;
	// it is a matrix larger than the seeds it splits (docs/ci.md).
	if _, ok := opts.shard.seed(opts.seed, opts.runs, 0); !ok {
		if opts.runs > 0 {
			return nil, fmt.Errorf("shard %s is empty: shard i of n runs seeds -seed+i, -seed+i+n, … among the -runs %d, and %d is not below %d; use at most %d shards, or more -runs", opts.shard, opts.runs, opts.shard.Index, opts.runs, opts.runs)
		}
		return nil, fmt.Errorf("shard %s is empty: -seed %d leaves fewer than %d seeds before the largest, %d", opts.shard, opts.seed, opts.shard.Index+1, uint64(math.MaxUint64))
	}
	return &opts, nil
}

// parseMerge validates -merge's command line: -out and shard directories
// as arguments, and -json; every other flag is a campaign's.
func parseMerge(opts *options, fs *flag.FlagSet, set map[string]bool) (*options, error) {
	for name := range set {
		if name != "merge" && name != "out" && name != "json" {
			return nil, fmt.Errorf("-merge takes only -out, -json and the shard directories, not -%s", name)
		}
	}
	switch {
	case opts.out == "":
		return nil, errors.New("-merge needs -out DIR, the directory to merge into")
	case fs.NArg() == 0:
		return nil, errors.New("-merge needs the shard directories as arguments, as in fuzzrun -merge -out DIR shard-0 shard-1")
	}
	opts.mode, opts.mergeDirs = modeMerge, fs.Args()
	return opts, nil
}

// flagValue returns the value of the flag name of fs, of type T.
func flagValue[T any](fs *flag.FlagSet, name string) T {
	v, _ := fs.Lookup(name).Value.(flag.Getter).Get().(T)
	return v
}

// anySet returns the first of names that was set, or "".
func anySet(set map[string]bool, names []string) string {
	for _, n := range names {
		if set[n] {
			return n
		}
	}
	return ""
}

func find(all []properties.Scenario, name string) (properties.Scenario, bool) {
	for _, sc := range all {
		if sc.Name == name {
			return sc, true
		}
	}
	return properties.Scenario{}, false
}
