package core

import "sync/atomic"

// maxShards bounds a KeyedQueue's shards: one bit each in slots.starved.
const maxShards = 64

// slots is the parallelism cap that the engines of a sharded KeyedQueue
// share: a count of the slots their workers hold, and of the tasks
// running, in atomics rather than under any engine's lock, so that shards
// take and give back slots without meeting.
//
// A shard with pending tasks that finds no free slot sets its bit in
// starved, then tries once more (a slot given back between its first try
// and the bit is then not missed); whoever gives a slot back while a bit
// is set kicks the starved shards, outside its own lock, one lock at a
// time. A worker whose shard has work left gives up its slot rather than
// take the next task while another shard is starved, once it has run a
// turn (shardTurn tasks) there, so that slots go round the shards and no
// key waits behind more than a turn of another shard's backlog. Turns
// rather than single tasks spare a busy queue a second lock and a move
// between shards per task: 3-14% less time per event in alternated
// 2-core runs of BenchmarkScale's keyed rows.
type slots struct {
	limit      atomic.Int64 // 0: no cap
	used       atomic.Int64 // slots held by workers
	running    atomic.Int64 // tasks running, for Stats
	maxRunning atomic.Int64
	starved    atomic.Uint64 // bit i: shard i has pending tasks and found no slot
	ids        atomic.Uint64 // the last task id given
	live       atomic.Int32  // shards not stopped
	// stopping and closing are set by Drain and Close before any shard
	// changes, so that the queue stops taking tasks, and starting them,
	// at one moment rather than shard by shard.
	stopping, closing atomic.Bool
	done              chan struct{} // closed once every shard stopped and its lanes are gone
	engines           []*engine
}

// take takes a slot for e's next worker, or reports that none is free,
// marking e starved.
func (s *slots) take(e *engine) bool {
	if s.tryTake() {
		return true
	}
	s.starved.Or(e.bit)
	return s.tryTake()
}

func (s *slots) tryTake() bool {
	for {
		u, l := s.used.Load(), s.limit.Load()
		if l > 0 && u >= l {
			return false
		}
		if s.used.CompareAndSwap(u, u+1) {
			return true
		}
	}
}

// over reports whether a shrink left more slots held than the limit.
func (s *slots) over() bool {
	l := s.limit.Load()
	return l > 0 && s.used.Load() > l
}

// othersStarved reports whether a shard other than e waits for a slot.
func (s *slots) othersStarved(e *engine) bool { return s.starved.Load()&^e.bit != 0 }

// started and ended count a task that starts or ends running.
func (s *slots) started() {
	r := s.running.Add(1)
	for m := s.maxRunning.Load(); r > m && !s.maxRunning.CompareAndSwap(m, r); m = s.maxRunning.Load() {
	}
}

func (s *slots) ended() { s.running.Add(-1) }

// kick lets each starved shard start workers for the slots now free,
// starting with the one after shard from, so that slots go round. It is
// called with no engine's lock held.
func (s *slots) kick(from int) {
	b := s.starved.Swap(0)
	for j := 1; j <= len(s.engines) && b != 0; j++ {
		e := s.engines[(from+j)%len(s.engines)]
		if b&e.bit == 0 {
			continue
		}
		b &^= e.bit
		e.mu.Lock()
		e.spawnLocked()
		e.maybeStopLocked()
		e.unlock()
	}
}

// stop removes every shard's lanes once the last shard stopped, then
// closes done. It is called with no engine's lock held.
func (s *slots) stop() {
	for _, e := range s.engines {
		e.mu.Lock()
		e.keys.evictAllLocked()
		e.unlock()
	}
	close(s.done)
}

// handOff takes the slot of a worker of shard from, which it no longer
// counts, to a starved shard: it returns that shard's next task, taken
// into the slot, or nil with the slot given back when no starved shard has
// one. It is called with no engine's lock held.
func (s *slots) handOff(from *engine) *Task {
	n := len(s.engines)
	for {
		b := s.starved.Load()
		var e *engine
		for j := 1; j < n; j++ {
			if x := s.engines[(from.shard+j)%n]; b&x.bit != 0 {
				e = x
				break
			}
		}
		if e == nil {
			s.used.Add(-1)
			if s.starved.Load() != 0 {
				s.kick(from.shard)
			}
			return nil
		}
		if !s.starved.CompareAndSwap(b, b&^e.bit) {
			continue
		}
		e.mu.Lock()
		if e.state < engStopped && e.pending.len() > 0 {
			t := e.takeLocked(e.nums.take(false)) // nil: the slot is given back
			e.spawnLocked()                       // for what is left, starved again if no slot is free
			e.maybeStopLocked()
			e.unlock()
			return t
		}
		e.unlock()
	}
}
