package properties

import (
	"strings"

	"github.com/converge-sim/converge/model"
)

// draws are the answers a history run gave to the choices the world drew
// through the cluster (model.Cluster.Choose, model.Outside.Choose): a
// Job's pod failing, a kubelet's delay, the seed of the operator's
// crypto/rand (model.SeedLabel), a custom actor's pick. They are kept per
// label family, in order, so that the differential oracle's reference run
// draws the same world (docs/design.md, "The reference run sees the same
// world"): its n-th choice of a family gets the history's n-th answer.
// The run's own decisions are not recorded: which step to take (asked of
// the runner's chooser directly), which fault to inject, which input spec
// to set.
type draws map[string][]int

// recordingChooser passes every choice to inner and records the answer
// in d.
type recordingChooser struct {
	inner model.Chooser
	d     draws
}

func (c recordingChooser) Choose(n int, label string) int {
	v := c.inner.Choose(n, label)
	if label != inputLabel && label != faultLabel {
		f := drawFamily(label)
		c.d[f] = append(c.d[f], v)
	}
	return v
}

// ask is one choice a reference run made: the family asked, among how
// many options, and the answer it got.
type ask struct {
	family string
	n, v   int
}

// replayChooser answers a reference run's choices from a history run's
// draws: the i-th choice of a family gets the history's i-th answer of
// that family when there is one and it is among the n options, else the
// first option, as the run's decisions (its steps) always do. It records
// what it answered, so that the memo can tell which histories this
// reference also stands for (referenceMemo).
type replayChooser struct {
	d     draws
	pos   map[string]int
	asked *[]ask
}

func newReplayChooser(d draws) replayChooser {
	return replayChooser{d: d, pos: map[string]int{}, asked: new([]ask)}
}

func (c replayChooser) Choose(n int, label string) int {
	if label == "step" {
		return 0
	}
	f := drawFamily(label)
	i := c.pos[f]
	c.pos[f] = i + 1
	v := replayed(c.d[f], i, n)
	*c.asked = append(*c.asked, ask{family: f, n: n, v: v})
	return v
}

// replayed is the answer to the i-th choice among n of a family whose
// history answers are vs.
func replayed(vs []int, i, n int) int {
	if i < len(vs) && vs[i] < n {
		return vs[i]
	}
	return 0
}

// replays reports whether a reference run that asked asked would get the
// same answers from d: a reference run is deterministic given its
// answers, so it then stands for a run with draws d too.
func replays(asked []ask, d draws) bool {
	pos := map[string]int{}
	for _, a := range asked {
		i := pos[a.family]
		pos[a.family] = i + 1
		if replayed(d[a.family], i, a.n) != a.v {
			return false
		}
	}
	return true
}

// generatedAlphabet is the alphabet of the suffixes the model's API
// server appends to a GenerateName (model.Server's generateName),
// and generatedSuffixLen their length.
const (
	generatedAlphabet  = "bcdfghjklmnpqrstvwxz2456789"
	generatedSuffixLen = 5
)

// drawFamily is a choice's label with generated name suffixes replaced by
// "*": "kubelet: does pi-x7kq2 fail" is "kubelet: does pi-* fail". A
// history creates more objects than a fresh cluster, so the same pod of
// the same Job has another generated name in each; its draws still match
// by position within the family.
func drawFamily(label string) string {
	var b strings.Builder
	for i := 0; i < len(label); i++ {
		b.WriteByte(label[i])
		end := i + 1 + generatedSuffixLen
		if label[i] != '-' || end > len(label) || (end < len(label) && isNameByte(label[end])) ||
			strings.Trim(label[i+1:end], generatedAlphabet) != "" {
			continue
		}
		b.WriteByte('*')
		i = end - 1
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}
