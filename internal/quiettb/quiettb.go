// Package quiettb holds a rapid.TB for tests that check how rapid shrinks:
// it records a failure instead of failing the test, so a test can run many
// seeds and count the ones whose failure did not shrink as it must.
package quiettb

// TB is a rapid.TB that records a failure instead of failing the test.
type TB struct{ failed bool }

func (q *TB) Helper()               {}
func (q *TB) Name() string          { return "shrink" }
func (q *TB) Logf(string, ...any)   {}
func (q *TB) Log(...any)            {}
func (q *TB) Skipf(string, ...any)  { q.failed = true }
func (q *TB) Skip(...any)           { q.failed = true }
func (q *TB) SkipNow()              { q.failed = true }
func (q *TB) Errorf(string, ...any) { q.failed = true }
func (q *TB) Error(...any)          { q.failed = true }
func (q *TB) Fatalf(string, ...any) { q.failed = true }
func (q *TB) Fatal(...any)          { q.failed = true }
func (q *TB) FailNow()              { q.failed = true }
func (q *TB) Fail()                 { q.failed = true }

// Failed reports whether the property failed.
func (q *TB) Failed() bool { return q.failed }
