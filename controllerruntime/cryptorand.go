package controllerruntime

import (
	"bytes"
	cryptorand "crypto/rand"
	"encoding/binary"
	"io"
	"math"
	mathrand "math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/converge-sim/converge/model"
)

// Operators fill Secrets from crypto/rand (a password, a token): a run
// whose reconcilers read the system's randomness would write other bytes
// every time, and a finding would not replay. So crypto/rand.Reader is a
// dispatcher (installed once, when the package is loaded): a read from a
// goroutine that is running one of the model's reconciles is served by
// that run's own stream, and any other read by the reader it replaced.
//
// A run's stream is ChaCha8, seeded on its first read by a choice drawn
// from the run's one source of choices (model.SeedLabel): the same seed
// gives the same bytes, and so the same trace; another seed, other bytes.
// A run that reads no randomness draws nothing, so its choices are as
// before. It is bound by goroutine, not by a global "current run", since
// runs of parallel tests and exploration workers read at the same time;
// a run is single-threaded, so its reconciles run on the goroutine that
// steps it. testing/cryptotest.SetGlobalRandom is no fit: it needs the
// test's *testing.T, panics in parallel tests, and sets one stream for
// the whole process. What the dispatcher cannot reach: key generation
// (crypto/rsa, crypto/ecdsa), which since Go 1.24 ignores the Reader it
// is given and reads the system's randomness, and a goroutine the
// reconciler starts itself.

// runRandom is one run's stream of crypto/rand bytes.
type runRandom struct {
	c *model.Cluster
	r *mathrand.ChaCha8 // nil until the first read
	// g is the goroutine that steps the run, read at its first reconcile
	// and kept (0 before): a run is stepped by one goroutine for its
	// whole life (properties/limit.go starts or takes one per run), and
	// reading the id from runtime.Stack on every reconcile was a fifth of
	// a controller-runtime run's CPU (docs/design.md, "Data a run owns:
	// crypto/rand").
	g uint64
}

// goroutine returns the goroutine that steps the run.
func (rr *runRandom) goroutine() uint64 {
	if rr.g == 0 {
		rr.g = goroutineID()
	}
	return rr.g
}

// Read fills b from the run's stream, seeding it from the run's source of
// choices on the first read.
func (rr *runRandom) Read(b []byte) (int, error) {
	if rr.r == nil {
		var seed [32]byte
		binary.LittleEndian.PutUint64(seed[:8], uint64(rr.c.Choose(math.MaxInt32, model.SeedLabel)))
		rr.r = mathrand.NewChaCha8(seed)
	}
	return rr.r.Read(b)
}

// randomDispatcher is crypto/rand.Reader while this package is loaded.
type randomDispatcher struct {
	mu     sync.Mutex
	byG    map[uint64]*runRandom
	system io.Reader
}

var dispatcher = &randomDispatcher{byG: map[uint64]*runRandom{}, system: cryptorand.Reader}

func init() { cryptorand.Reader = dispatcher }

func (d *randomDispatcher) Read(b []byte) (int, error) {
	d.mu.Lock()
	rr := d.byG[goroutineID()]
	d.mu.Unlock()
	if rr == nil {
		return d.system.Read(b)
	}
	return rr.Read(b)
}

// bind serves the crypto/rand reads of rr's goroutine, the calling one,
// from rr until the returned function runs, which restores what was bound
// before (a reconcile that waits runs others on its goroutine).
func (d *randomDispatcher) bind(rr *runRandom) func() {
	id := rr.goroutine()
	d.mu.Lock()
	prev := d.byG[id]
	d.byG[id] = rr
	d.mu.Unlock()
	return func() {
		d.mu.Lock()
		if prev == nil {
			delete(d.byG, id)
		} else {
			d.byG[id] = prev
		}
		d.mu.Unlock()
	}
}

// goroutineIDReads counts goroutineID's calls, for the test that a run
// reads its goroutine once.
var goroutineIDReads atomic.Uint64

// goroutineID returns the calling goroutine's number, from the first line
// of its stack ("goroutine 18 [running]:").
func goroutineID() uint64 {
	goroutineIDReads.Add(1)
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line = bytes.TrimPrefix(line, []byte("goroutine "))
	if i := bytes.IndexByte(line, ' '); i > 0 {
		line = line[:i]
	}
	id, _ := strconv.ParseUint(string(line), 10, 64)
	return id
}
