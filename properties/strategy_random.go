package properties

import (
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// randomStrategy is StrategyRandom, the default: rapid draws every step
// of the fault phase (the runner's Choose(n, "step")), and shrinks what
// it finds (rapidSearch).
type randomStrategy struct{}

func (randomStrategy) validate(s Strategy) error   { return noDepth(s) }
func (randomStrategy) describe(Strategy) string    { return StrategyRandom }
func (randomStrategy) replayFlags(Strategy) string { return "" }
func (randomStrategy) seeded() bool                { return true }
func (randomStrategy) keepsCorpus() bool           { return false }

func (randomStrategy) search(p *Prepared, _ Strategy, opts SearchOptions, replay func(uint64) string) (*SearchResult, error) {
	return p.rapidSearch(opts, replay)
}

// chooser is the run's recording rapid chooser itself.
func (randomStrategy) chooser(*shape, Strategy) (func(*rapid.T, *rapidChooser) model.Chooser, error) {
	return func(_ *rapid.T, ch *rapidChooser) model.Chooser { return ch }, nil
}
