package core

import "context"

// SetSpinners sets how many workers of the queues made afterwards may spin
// for work at once (a quarter of GOMAXPROCS by default), and returns the
// function that restores the default.
func SetSpinners(n int) (restore func()) {
	old := spinners
	spinners = func() int { return n }
	return func() { spinners = old }
}

// TraceHooks runs the engine's runtime/trace hooks of one task n times,
// as its enqueue, start and end do, for BenchmarkTraceHooks.
func TraceHooks(n int) {
	e := newEngine(1, newConfig(nil))
	t := &Task{e: e, parent: context.Background()}
	for range n {
		e.rtEnqueue(t)
		t.rtStart()
		t.rtEnd(TaskSucceeded)
	}
}

// NewKeyedQueueShards is NewKeyedQueue with n shards (GOMAXPROCS for
// NewKeyedQueue) when the options allow more than one.
func NewKeyedQueueShards[K comparable](n int, opts ...Option) *KeyedQueue[K] {
	return newKeyedQueue[K](n, opts)
}

// ShardTurn is how many tasks a sharded KeyedQueue's worker runs in its
// shard in a row while another shard waits for a slot.
const ShardTurn = shardTurn

// KeyShard returns the index of the shard that key's tasks go to.
func KeyShard[K comparable](k *KeyedQueue[K], key K) int { return k.shard(key).idx }
