package trace

// ring is a bounded FIFO that keeps the newest max values. Its backing array
// grows on demand up to max, so that a large bound costs nothing until it is
// reached. It is not safe for concurrent use; the Recorder's mutex guards it.
type ring[T any] struct {
	buf   []T
	start int // index of the oldest value
	n     int // number of values held
	max   int // at least 1
}

func newRing[T any](max int) ring[T] { return ring[T]{max: max} }

// push appends v. When the ring is full, it drops the oldest value and
// returns it with evicted true.
func (r *ring[T]) push(v T) (old T, evicted bool) {
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = v
		r.n++
		return old, false
	}
	if len(r.buf) < r.max {
		// n == len(buf) < max: the values are contiguous from start.
		if r.start != 0 {
			r.buf = append(r.buf[r.start:], r.buf[:r.start]...)
			r.start = 0
		}
		if len(r.buf) == cap(r.buf) {
			grown := make([]T, len(r.buf), min(r.max, max(16, 2*cap(r.buf))))
			copy(grown, r.buf)
			r.buf = grown
		}
		r.buf = append(r.buf, v)
		r.n++
		return old, false
	}
	old = r.buf[r.start]
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
	return old, true
}

// reserve makes room for n values, up to max, in an empty ring, so that a
// caller that knows how many it will push does not copy them as the ring
// grows.
func (r *ring[T]) reserve(n int) {
	if r.n == 0 && cap(r.buf) < min(n, r.max) {
		r.buf, r.start = make([]T, 0, min(n, r.max)), 0
	}
}

// len returns the number of values held.
func (r *ring[T]) len() int { return r.n }

// at returns the i-th oldest value, 0 <= i < len().
func (r *ring[T]) at(i int) *T { return &r.buf[(r.start+i)%len(r.buf)] }

// last returns the newest value; the ring must not be empty.
func (r *ring[T]) last() *T { return r.at(r.n - 1) }

// pop removes the newest value; the ring must not be empty.
func (r *ring[T]) pop() {
	var zero T
	*r.last() = zero
	r.n--
}

// search returns the smallest i in [0, len()) for which f(at(i)) is true,
// or len() if there is none; f must be false and then true along the ring.
func (r *ring[T]) search(f func(*T) bool) int {
	lo, hi := 0, r.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if !f(r.at(m)) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
