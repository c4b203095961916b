//go:build !unix

package properties_test

import "time"

// cpuTime is zero where getrusage is missing; the benchmarks then report no
// CPU figure.
func cpuTime() time.Duration { return 0 }
