package memcached_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/fuzzrun/fuzzruntest"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func campaign(t *testing.T) []properties.Scenario {
	t.Helper()
	scs, err := memcached.Campaign()
	require.NoError(t, err)
	return scs
}

// TestFuzzrun makes this test binary the campaign's fuzzrun:
//
//	go test -c -o memcached.test ./examples/memcached
//	./memcached.test -test.run '^TestFuzzrun$' -- -duration 10m -workers 2 -out findings -json
//
// Under a plain go test it skips.
func TestFuzzrun(t *testing.T) { fuzzrun.MainTest(t, campaign(t)...) }

// TestCampaignReplaysByteForByte runs a short campaign, a fixed number
// of seeds, through this package's test binary with two worker processes,
// and requires each finding (the twin's stale Available condition) to replay
// twice byte for byte through the binary, timestamps of conditions and
// events included. The binary is the running one (fuzzruntest.Self): go
// test built it, and fuzzruntest.Build would link it again.
func TestCampaignReplaysByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign through the test binary")
	}
	n := fuzzruntest.RequireCampaignReplays(t, fuzzruntest.Self(t, "TestFuzzrun"), "-runs", campaignRuns, "-seed", campaignSeed, "-workers", "2")
	assert.Positive(t, n, "the campaign must find the twin's bug")
}

// The campaign of TestCampaignReplaysByteForByte: seeds of each row.
const (
	campaignRuns = "4"
	campaignSeed = "1"
)
