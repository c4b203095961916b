//go:build !unix

package cputime

import "time"

// Process returns zero where getrusage is missing; benchmarks then report
// no CPU figure.
func Process() time.Duration { return 0 }
