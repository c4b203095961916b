package properties_test

import "testing"

// skipUnderRace skips a test of search results and determinism under the
// race detector: such a test explores or shrinks for long, runs nothing
// concurrently that the lighter tests do not (TestExploreWorkersAgree
// covers workers side by side, under -race too), and -race makes it
// several times slower, which on a loaded CI runner pushed the package
// past go test's timeout (issue 37). .ci/run runs every test without
// -race first (go test ./...), where this one runs and can fail.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("search results and determinism: run without -race (go test ./..., first in .ci/run)")
	}
}

// raceBudget is full, or underRace under the race detector: for a test
// whose runs exercise concurrency, a smaller budget of the same runs.
func raceBudget(full, underRace int) int {
	if raceEnabled {
		return underRace
	}
	return full
}
