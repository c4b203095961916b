package properties

import "fmt"

// exhaustiveStrategy is StrategyExhaustive: bounded exhaustive
// exploration (explore.go, explore_workers.go; docs/design.md, "Bounded
// exhaustive exploration"). Explore, with all its bounds, is its full
// entry point; Search under this strategy explores to the strategy's
// depth and deviations with Explore's defaults for the rest.
type exhaustiveStrategy struct{}

func (exhaustiveStrategy) validate(s Strategy) error {
	if err := checkExploreDepth("exhaustive depth", s.Depth); err != nil {
		return err
	}
	return checkDeviations("exhaustive deviations", s.Deviations, s.Depth)
}

func (exhaustiveStrategy) describe(s Strategy) string {
	if s.Deviations > 0 {
		return fmt.Sprintf("%s depth %d, ≤%d deviations", StrategyExhaustive, s.Depth, s.Deviations)
	}
	return fmt.Sprintf("%s depth %d", StrategyExhaustive, s.Depth)
}

// replayFlags is empty: no seed names an exploration's run; its
// counterexample's line is ExploreLine's.
func (exhaustiveStrategy) replayFlags(Strategy) string { return "" }

func (exhaustiveStrategy) seeded() bool      { return false }
func (exhaustiveStrategy) keepsCorpus() bool { return false }

// search explores p to s's bounds. It takes no seed and no number of
// checks: the bounds say which runs it makes, and Runs is the number of
// executions. Its counterexample's Replay is Explore's (ExploreLine, or
// the go test line of opts.Test).
func (exhaustiveStrategy) search(p *Prepared, s Strategy, opts SearchOptions, _ func(uint64) string) (*SearchResult, error) {
	res, err := p.Explore(ExploreOptions{Depth: s.Depth, Deviations: s.Deviations, Test: opts.Test, Wrap: opts.Wrap, Progress: func(ExploreResult) {}})
	if err != nil {
		return nil, err
	}
	return &SearchResult{Runs: res.Executions, Counterexample: res.Counterexample}, nil
}
