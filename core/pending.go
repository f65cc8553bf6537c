package core

import "context"

// wqPending holds a WorkQueue's tasks that are accepted and not started:
// highest priority first, and in arrival order within a priority.
//
// Each priority with queued tasks has a level: a ring of entries, each a
// task pointer or, for a bare task (see [WorkQueue.Go]), its function alone,
// indexed by a sequence number that a task keeps, so that a task can be
// removed from the middle in O(1) by clearing its slot. Bare tasks cannot
// be removed: nothing refers to them. Levels sit in a
// max-heap on their priority and are found by priority through a one-entry
// cache, and through a map once a second priority appears. Push, pop and
// remove cost O(1) for a priority that already has a level, and O(log L)
// otherwise, where L is the number of levels; none allocates once the ring
// is large enough. A level left empty is kept while it is the only one, so
// that a queue that keeps emptying and refilling at one priority does no
// map or heap work at all.
//
// wqPending is not safe for concurrent use: its WorkQueue's mutex guards it.
type wqPending struct {
	n      int                   // tasks queued
	levels []*wqLevel            // max-heap on prio
	byPrio map[Priority]*wqLevel // every level in levels, while there are two or more
	last   *wqLevel              // the level pushed to last; nil once removed
}

// wqLevel is the queue of one priority's tasks: slots head to tail-1 of
// ring (by sequence number modulo its length), oldest first. A removed
// task leaves an empty slot behind, which pop skips.
type wqLevel struct {
	prio       Priority
	ring       []wqEntry // length a power of two, or nil
	head, tail uint32    // sequence numbers, which wrap around
	peak       uint32    // the most slots in use since the level was last empty
	idle       uint64    // tasks queued in the fills since one used an eighth of the ring
	n          int       // tasks in the ring
	index      int       // in wqPending.levels
}

// wqRingMin and wqRingKeep bound a level's ring: it starts at wqRingMin
// slots, doubles when full, and is let go when its level empties while
// larger than wqRingKeep, once twice its length in tasks went through it
// without a fill using an eighth of it: a queue that keeps filling a large
// ring does not regrow it each time, and a burst's memory goes after twice
// its size in smaller fills (or with the queue).
const (
	wqRingMin  = 16
	wqRingKeep = 1 << 16
)

// len returns the number of queued tasks.
func (p *wqPending) len() int { return p.n }

// wqEntry is one pending task: t, or for a bare task only its function.
// The zero entry is an empty slot.
type wqEntry struct {
	t  *wqTask
	fn func(context.Context) error // a bare task's function; nil when t is set
}

// push adds t behind the tasks of its priority.
func (p *wqPending) push(t *wqTask) {
	t.seq = p.add(wqEntry{t: t}, t.task.priority)
}

// pushBare adds the bare task fn behind the tasks of priority prio.
func (p *wqPending) pushBare(fn func(context.Context) error, prio Priority) {
	p.add(wqEntry{fn: fn}, prio)
}

// add puts e behind the tasks of priority prio and returns its sequence
// number.
func (p *wqPending) add(e wqEntry, prio Priority) uint32 {
	l := p.level(prio)
	if int(l.tail-l.head) == len(l.ring) {
		l.grow()
	}
	seq := l.tail
	l.ring[seq&uint32(len(l.ring)-1)] = e
	l.tail++
	if u := l.tail - l.head; u > l.peak {
		l.peak = u
	}
	l.n++
	p.n++
	return seq
}

// pop removes and returns the first task of the highest priority, or the
// zero entry.
func (p *wqPending) pop() wqEntry {
	if p.n == 0 {
		return wqEntry{}
	}
	l := p.top()
	mask := uint32(len(l.ring) - 1)
	for l.ring[l.head&mask].empty() {
		l.head++
	}
	e := l.ring[l.head&mask]
	l.ring[l.head&mask] = wqEntry{}
	l.head++
	p.took(l, 1)
	return e
}

// top returns the level pop takes from next; p must not be empty.
func (p *wqPending) top() *wqLevel {
	l := p.levels[0]
	for l.n == 0 {
		// Only a level that was alone can be empty; once another
		// appears, the empty one goes.
		p.removeLevel(l)
		l = p.levels[0]
	}
	return l
}

// popBare moves into dst the bare tasks that pop would return next, while
// they are bare and of priority prio, and returns how many it moved.
func (p *wqPending) popBare(dst []func(context.Context) error, prio Priority) int {
	if p.n == 0 {
		return 0
	}
	l := p.top()
	if l.prio != prio {
		return 0
	}
	mask := uint32(len(l.ring) - 1)
	k := 0
	for k < len(dst) && k < l.n {
		e := &l.ring[l.head&mask]
		if e.t != nil {
			break
		}
		if e.fn != nil {
			dst[k] = e.fn
			k++
			*e = wqEntry{}
		}
		l.head++
	}
	if k > 0 {
		p.took(l, k)
	}
	return k
}

// pushFrontBare puts the bare task fn before the tasks of priority prio,
// where a task taken from the queue but not started goes back.
func (p *wqPending) pushFrontBare(fn func(context.Context) error, prio Priority) {
	l := p.level(prio)
	if int(l.tail-l.head) == len(l.ring) {
		l.grow()
	}
	l.head--
	l.ring[l.head&uint32(len(l.ring)-1)] = wqEntry{fn: fn}
	l.n++
	p.n++
}

// empty reports whether e is an empty slot.
func (e wqEntry) empty() bool { return e.t == nil && e.fn == nil }

// remove takes t out of the queue and reports whether it was there.
func (p *wqPending) remove(t *wqTask) bool {
	l := p.find(t.task.priority)
	if l == nil || t.seq-l.head >= l.tail-l.head {
		return false
	}
	mask := uint32(len(l.ring) - 1)
	if l.ring[t.seq&mask].t != t {
		return false
	}
	l.ring[t.seq&mask] = wqEntry{}
	for l.head != l.tail && l.ring[l.head&mask].empty() {
		l.head++
	}
	p.took(l, 1)
	return true
}

// took counts k tasks taken from l, and lets l or its ring go if empty.
func (p *wqPending) took(l *wqLevel, k int) {
	l.n -= k
	p.n -= k
	if l.n > 0 {
		return
	}
	if int(l.peak) >= len(l.ring)/8 {
		l.idle = 0
	} else {
		l.idle += uint64(l.tail) // the fill queued tail tasks: head and tail start at 0
	}
	l.head, l.tail, l.peak = 0, 0, 0
	if len(l.ring) > wqRingKeep && l.idle >= 2*uint64(len(l.ring)) {
		l.ring, l.idle = nil, 0
	}
	if len(p.levels) > 1 {
		p.removeLevel(l)
	}
}

// grow doubles l's ring, keeping each task at its sequence number.
func (l *wqLevel) grow() {
	ring := make([]wqEntry, max(2*len(l.ring), wqRingMin))
	mask, newMask := uint32(len(l.ring)-1), uint32(len(ring)-1)
	for s := l.head; s != l.tail; s++ {
		ring[s&newMask] = l.ring[s&mask]
	}
	l.ring = ring
}

// find returns prio's level, or nil.
func (p *wqPending) find(prio Priority) *wqLevel {
	if l := p.last; l != nil && l.prio == prio {
		return l
	}
	if p.byPrio != nil {
		return p.byPrio[prio]
	}
	if len(p.levels) == 1 && p.levels[0].prio == prio {
		return p.levels[0]
	}
	return nil
}

// level returns prio's level, making it if needed.
func (p *wqPending) level(prio Priority) *wqLevel {
	l := p.find(prio)
	if l == nil {
		if len(p.levels) == 1 && p.levels[0].n == 0 {
			// The only level is empty: reuse it, ring and all.
			l = p.levels[0]
			l.prio = prio
		} else {
			l = &wqLevel{prio: prio, index: len(p.levels)}
			p.levels = append(p.levels, l)
			p.up(l.index)
			if len(p.levels) > 1 {
				if p.byPrio == nil {
					p.byPrio = make(map[Priority]*wqLevel, 4)
					for _, o := range p.levels {
						p.byPrio[o.prio] = o
					}
				}
				p.byPrio[prio] = l
			}
		}
	}
	p.last = l
	return l
}

// removeLevel takes the empty level l out of the heap.
func (p *wqPending) removeLevel(l *wqLevel) {
	i, n := l.index, len(p.levels)-1
	if i != n {
		p.swap(i, n)
	}
	p.levels[n] = nil
	p.levels = p.levels[:n]
	if i != n && !p.down(i) {
		p.up(i)
	}
	if p.byPrio != nil {
		delete(p.byPrio, l.prio)
		if len(p.levels) <= 1 {
			p.byPrio = nil
		}
	}
	if p.last == l {
		p.last = nil
	}
	l.index = -1
}

func (p *wqPending) swap(i, j int) {
	p.levels[i], p.levels[j] = p.levels[j], p.levels[i]
	p.levels[i].index = i
	p.levels[j].index = j
}

func (p *wqPending) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if p.levels[parent].prio >= p.levels[i].prio {
			return
		}
		p.swap(i, parent)
		i = parent
	}
}

// down sifts level i down and reports whether it moved.
func (p *wqPending) down(i int) bool {
	start, n := i, len(p.levels)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && p.levels[r].prio > p.levels[c].prio {
			c = r
		}
		if p.levels[i].prio >= p.levels[c].prio {
			break
		}
		p.swap(i, c)
		i = c
	}
	return i > start
}

// drain removes every queued task and returns the tasks with a handle,
// highest priority first, and the number of bare tasks.
func (p *wqPending) drain() (tasks []*wqTask, bare int) {
	for p.n > 0 {
		if e := p.pop(); e.t != nil {
			tasks = append(tasks, e.t)
		} else {
			bare++
		}
	}
	return tasks, bare
}
