package model

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestQueueDeduplicates(t *testing.T) {
	q := NewQueue(&Clock{}, "q", Backoff{})
	q.Add("a")
	q.Add("b")
	q.Add("a")
	assert.Equal(t, 2, q.Len())
	k, _ := q.Get()
	assert.Equal(t, "a", k)
}

func TestQueueReaddWhileProcessingRunsAfterDone(t *testing.T) {
	q := NewQueue(&Clock{}, "q", Backoff{})
	q.Add("a")
	k, _ := q.Get()
	q.Add("a")
	assert.Zero(t, q.Len(), "a key being processed is not handed out again")
	q.Done(k)
	assert.Equal(t, 1, q.Len(), "but it is processed again after Done")
}

func TestQueueAddAfterKeepsTheEarliestTime(t *testing.T) {
	clock := &Clock{}
	q := NewQueue(clock, "q", Backoff{})
	q.AddAfter("a", 10)
	q.AddAfter("a", 3)
	q.AddAfter("a", 7)
	clock.Fire()
	assert.Equal(t, Time(3), clock.Now())
	assert.Equal(t, 1, q.Len())
	assert.Nil(t, clock.Next(), "the later timers were cancelled or absorbed")
}

func TestQueueBackoffIsExponentialPerItem(t *testing.T) {
	q := NewQueue(&Clock{}, "q", Backoff{Base: 1, Max: 10})
	var got []Time
	for range 6 {
		got = append(got, q.When("a"))
	}
	assert.Equal(t, []Time{1, 2, 4, 8, 10, 10}, got)
	assert.Equal(t, Time(1), q.When("b"), "backoff is per item")
	q.Forget("a")
	assert.Equal(t, Time(1), q.When("a"))
}

// TestQueueNeverHandsOutAKeyTwiceAtOnce runs random operations against the
// queue and checks it against a naive model: a key is never handed out while
// it is being processed, and every key added is handed out eventually.
func TestQueueNeverHandsOutAKeyTwiceAtOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clock := &Clock{}
		q := NewQueue(clock, "q", Backoff{Base: 1, Max: 4})
		keys := []string{"a", "b", "c"}
		processing := map[string]bool{}
		owed := map[string]bool{} // added and not handed out since
		for range rapid.IntRange(1, 60).Draw(t, "ops") {
			key := rapid.SampledFrom(keys).Draw(t, "key")
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0:
				q.Add(key)
				owed[key] = true
			case 1:
				q.AddAfter(key, Time(rapid.IntRange(0, 3).Draw(t, "delay")))
				owed[key] = true
			case 2:
				if k, ok := q.Get(); ok {
					if processing[k] {
						t.Fatalf("key %s handed out while being processed", k)
					}
					processing[k] = true
					delete(owed, k)
				}
			case 3:
				busy := slices.Sorted(func(yield func(string) bool) {
					for k := range processing {
						if !yield(k) {
							return
						}
					}
				})
				if len(busy) > 0 {
					k := busy[rapid.IntRange(0, len(busy)-1).Draw(t, "done")]
					q.Done(k)
					delete(processing, k)
				}
			case 4:
				clock.Fire()
			}
		}
		// Drain: finish everything, fire every timer; every owed key comes out.
		for k := range processing {
			q.Done(k)
		}
		for clock.Next() != nil {
			clock.Fire()
		}
		for {
			k, ok := q.Get()
			if !ok {
				break
			}
			delete(owed, k)
			q.Done(k)
		}
		if len(owed) > 0 {
			t.Fatalf("keys added but never handed out: %v", owed)
		}
	})
}

func TestReconcileErrorOverridesRequeueAfter(t *testing.T) {
	c := NewCluster(Config{})
	calls := 0
	require.NoError(t, c.AddController(Controller{
		Name: "flaky", For: "Pod", Backoff: Backoff{Base: 2, Max: 8},
		NewReconciler: func(Client) Reconciler {
			return ReconcilerFunc(func(Request) (Result, error) {
				calls++
				return Result{RequeueAfter: 100}, errors.New("boom")
			})
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	c.Do(Action{Kind: ActReconcile})
	next := c.NextTimer()
	require.NotNil(t, next)
	assert.Equal(t, Time(2), next.At, "requeued with backoff, not after 100")
	c.Do(Action{Kind: ActTimer})
	c.Do(Action{Kind: ActReconcile})
	assert.Equal(t, Time(2+4), c.NextTimer().At, "the backoff doubles")
	assert.Equal(t, 2, calls)
}

func TestRequeueAfterForgetsBackoff(t *testing.T) {
	c := NewCluster(Config{})
	fail := true
	require.NoError(t, c.AddController(Controller{
		Name: "periodic", For: "Pod",
		NewReconciler: func(Client) Reconciler {
			return ReconcilerFunc(func(Request) (Result, error) {
				if fail {
					fail = false
					return Result{}, errors.New("once")
				}
				return Result{RequeueAfter: 5}, nil
			})
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	c.Do(Action{Kind: ActReconcile})
	c.Do(Action{Kind: ActTimer})
	c.Do(Action{Kind: ActReconcile})
	assert.Equal(t, c.Now()+5, c.NextTimer().At)
}
