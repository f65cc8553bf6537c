package core

import "sync/atomic"

// pendingQueue holds an engine's tasks that wait for a slot: highest
// priority first, and in arrival order within a priority.
//
// Each priority with tasks has a level, a FIFO ring; levels are sorted by
// priority, highest first. Push and pop are O(1) for a priority that has a
// level (queues seldom use more than a few); adding a level, or removing a
// canceled task from the middle, is O(L) for L levels (the task keeps its
// ring position, modulo 2^32; pop skips the cleared slot). Rings double
// when full; a level is dropped when it empties unless it is the only one,
// so that a burst's memory goes and a queue that keeps refilling does not
// allocate (free drops that one too, for a KeyedQueue shard left without
// lanes). Its engine's mutex guards it.
type pendingQueue struct {
	n      atomic.Int64 // tasks queued; read without the lock by spinning workers
	levels []*level     // highest priority first
}

// level is one priority's tasks: ring positions head to tail-1 (modulo its
// length, a power of two), oldest first, nil where a task was removed.
type level struct {
	prio       Priority
	ring       []*Task
	head, tail uint64
}

func (p *pendingQueue) len() int { return int(p.n.Load()) }

func (p *pendingQueue) push(t *Task) {
	l := p.find(t.priority)
	if l.tail-l.head == uint64(len(l.ring)) {
		l.grow()
	}
	l.ring[l.tail&uint64(len(l.ring)-1)] = t
	t.pos = uint32(l.tail)
	l.tail++
	p.n.Add(1)
}

// pushFront puts t back at the head of its priority, as the next of its
// level to pop.
func (p *pendingQueue) pushFront(t *Task) {
	l := p.find(t.priority)
	if l.tail-l.head == uint64(len(l.ring)) {
		l.grow()
	}
	if l.head == 0 {
		// Keep head <= tail without wrapping: a shift by 2^32 leaves every
		// ring index and every task's pos as they were.
		l.head += 1 << 32
		l.tail += 1 << 32
	}
	l.head--
	l.ring[l.head&uint64(len(l.ring)-1)] = t
	t.pos = uint32(l.head)
	p.n.Add(1)
}

// find returns the level of prio, adding it in order if there is none.
func (p *pendingQueue) find(prio Priority) *level {
	i := 0
	for ; i < len(p.levels); i++ {
		if l := p.levels[i]; l.prio == prio {
			return l
		} else if l.prio < prio {
			break
		}
	}
	l := &level{prio: prio}
	p.levels = append(p.levels, nil)
	copy(p.levels[i+1:], p.levels[i:])
	p.levels[i] = l
	return l
}

func (l *level) grow() {
	ring := make([]*Task, max(16, 2*len(l.ring)))
	for i := l.head; i < l.tail; i++ {
		ring[i&uint64(len(ring)-1)] = l.ring[i&uint64(len(l.ring)-1)]
	}
	l.ring = ring
}

// pop removes and returns the next task, or nil.
func (p *pendingQueue) pop() *Task {
	for len(p.levels) > 0 {
		l := p.levels[0]
		for ; l.head < l.tail; l.head++ {
			if t := l.ring[l.head&uint64(len(l.ring)-1)]; t != nil {
				p.removeAt(l, l.head)
				return t
			}
		}
		if len(p.levels) == 1 {
			l.reset()
			return nil
		}
		p.dropLevel(0)
	}
	return nil
}

// reset empties l, keeping its ring unless it is larger than 64 slots
// (512 bytes): a queue that keeps emptying and refilling at one priority
// allocates nothing, and one that emptied after a burst keeps little.
func (l *level) reset() {
	l.head, l.tail = 0, 0
	if len(l.ring) > 64 {
		l.ring = nil
	}
}

// free lets go of the levels, and the ring reset keeps, if the queue is
// empty.
func (p *pendingQueue) free() {
	if p.len() == 0 {
		p.levels = nil
	}
}

// remove takes t, which is queued, out of the queue.
func (p *pendingQueue) remove(t *Task) {
	for _, l := range p.levels {
		if l.prio == t.priority {
			p.removeAt(l, uint64(t.pos))
			return
		}
	}
}

// removeAt clears position pos of l's ring (modulo 2^32 will do).
func (p *pendingQueue) removeAt(l *level, pos uint64) {
	l.ring[pos&uint64(len(l.ring)-1)] = nil
	p.n.Add(-1)
	for l.head < l.tail && l.ring[l.head&uint64(len(l.ring)-1)] == nil {
		l.head++
	}
	if l.head == l.tail {
		if len(p.levels) == 1 {
			l.reset()
			return
		}
		for i, x := range p.levels {
			if x == l {
				p.dropLevel(i)
				break
			}
		}
	}
}

func (p *pendingQueue) dropLevel(i int) {
	copy(p.levels[i:], p.levels[i+1:])
	p.levels[len(p.levels)-1] = nil
	p.levels = p.levels[:len(p.levels)-1]
	if len(p.levels) == 0 {
		p.levels = nil
	}
}

// oldest returns the earliest accepted of the tasks at the heads of the
// levels, or nil: the oldest pending task of a WorkQueue.
func (p *pendingQueue) oldest() *Task {
	var o *Task
	for _, l := range p.levels {
		for i := l.head; i < l.tail; i++ {
			if t := l.ring[i&uint64(len(l.ring)-1)]; t != nil {
				if o == nil || t.enq < o.enq {
					o = t
				}
				break
			}
		}
	}
	return o
}
