package core_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// semModel is a reference model of a Semaphore: the contract of
// DESIGN.md written as plainly as possible, with no concurrency.
type semModel struct {
	limit, inUse int64
	canceled     uint64
	aging        time.Duration
	queue        []*semReq // waiting, in arrival order; served by best()
}

type semReq struct {
	n       int64
	p       core.Priority
	arrival time.Duration
	seq     int
	state   string // waiting, granted, canceled, released
	res     <-chan error
	cancel  context.CancelFunc
}

// ahead reports whether a is served before b.
func (m *semModel) ahead(a, b *semReq) bool {
	if m.aging > 0 {
		ka := int64(a.arrival) - int64(a.p)*int64(m.aging)
		kb := int64(b.arrival) - int64(b.p)*int64(m.aging)
		if ka != kb {
			return ka < kb
		}
	} else if a.p != b.p {
		return a.p > b.p
	}
	return a.seq < b.seq
}

// head returns the first waiter that fits the limit, or nil.
func (m *semModel) head() *semReq {
	var h *semReq
	for _, r := range m.queue {
		if r.n <= m.limit && (h == nil || m.ahead(r, h)) {
			h = r
		}
	}
	return h
}

func (m *semModel) notify() {
	for h := m.head(); h != nil && m.limit-m.inUse >= h.n; h = m.head() {
		m.inUse += h.n
		h.state = "granted"
		m.drop(h)
	}
}

func (m *semModel) drop(r *semReq) {
	m.queue = slices.DeleteFunc(m.queue, func(q *semReq) bool { return q == r })
}

// bigLimit is added to some limits of FuzzSemaphore's programs, so that
// they straddle 2^40, the largest limit the lock-free paths serve.
const bigLimit = 1<<40 - 3

// FuzzSemaphore decodes its input into a program of acquires at random
// weights and priorities, cancellations, releases, resizes (some to limits
// around 2^40), try-acquires and waits, runs it against a real Semaphore inside a synctest bubble,
// and checks after every step that each caller's outcome and the counters
// match the reference model.
func FuzzSemaphore(f *testing.F) {
	f.Add([]byte{3, 0, 1, 0, 2, 0, 3, 1, 0, 2, 0, 0})
	f.Add([]byte{2, 1, 0, 2, 2, 0, 3, 0, 0, 1, 1, 3, 5, 2, 0, 4, 3})
	f.Add([]byte{4, 0, 4, 1, 0, 1, 2, 0, 2, 0, 3, 0, 1, 5, 9, 0, 0, 2, 1, 1})
	f.Add([]byte{1, 0, 0, 2, 0, 0, 0, 0, 0, 5, 200, 0, 0, 0, 5, 200, 3, 0, 4})
	f.Add([]byte{200, 0, 0, 3, 0, 7, 4, 4, 1, 2, 4, 230, 0, 3, 3, 0, 4, 200, 0, 2, 4, 6})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 2 || len(prog) > 600 {
			return
		}
		synctest.Test(t, func(t *testing.T) { runSemaphoreProgram(t, prog) })
	})
}

func runSemaphoreProgram(t *testing.T, prog []byte) {
	m := &semModel{limit: int64(prog[0] % 6)}
	if prog[0] >= 192 {
		m.limit += bigLimit
	}
	if prog[1]%2 == 1 {
		m.aging = 10 * time.Millisecond
	}
	s := core.NewSemaphore(m.limit, core.WithAging(m.aging))
	start := time.Now()
	var reqs []*semReq
	var wg sync.WaitGroup
	defer func() {
		for _, r := range reqs {
			r.cancel()
		}
		wg.Wait()
	}()
	next := func(i *int) byte {
		if *i >= len(prog) {
			return 0
		}
		b := prog[*i]
		*i++
		return b
	}
	pick := func(b byte, state string) *semReq {
		return fzPick(reqs, int(b), func(r *semReq) bool { return r.state == state })
	}
	for i, step := 2, 0; i < len(prog); step++ {
		op := next(&i) % 6
		arg := next(&i)
		var did string
		switch op {
		case 0, 1: // acquire
			r := &semReq{
				n:       int64(arg % 4),
				p:       core.Priority(int(arg/4%5) - 2),
				arrival: time.Since(start),
				seq:     len(reqs),
				state:   "waiting",
			}
			ctx, cancel := context.WithCancel(context.Background())
			r.cancel = cancel
			res := make(chan error, 1) // the goroutine never waits for the test
			r.res = res
			wg.Go(func() { res <- s.AcquirePriority(ctx, r.n, r.p) })
			reqs = append(reqs, r)
			m.queue = append(m.queue, r)
			m.notify()
			did = "acquire"
		case 2: // cancel a waiter
			if r := pick(arg, "waiting"); r != nil {
				r.cancel()
				r.state = "canceled"
				m.canceled++
				m.drop(r)
				m.notify()
				did = "cancel"
			}
		case 3: // release a holder
			if r := pick(arg, "granted"); r != nil {
				s.Release(r.n)
				r.state = "released"
				m.inUse -= r.n
				m.notify()
				did = "release"
			}
		case 4:
			if arg%2 == 0 { // resize
				n := int64(arg / 2 % 6)
				if arg >= 192 {
					n += bigLimit
				}
				s.SetLimit(n)
				m.limit = n
				m.notify()
				did = "setlimit"
			} else { // try
				n := int64(arg / 2 % 4)
				want := m.head() == nil && m.limit-m.inUse >= n
				if got := s.TryAcquire(n); got != want {
					t.Fatalf("step %d: TryAcquire(%d) = %v, want %v (model %+v)", step, n, got, want, m)
				}
				if want {
					r := &semReq{n: n, seq: len(reqs), state: "granted", cancel: func() {}}
					reqs = append(reqs, r)
					m.inUse += n
				}
				did = "try"
			}
		case 5: // let virtual time pass, for aging
			time.Sleep(time.Duration(arg) * time.Millisecond)
			did = "sleep"
		}
		synctest.Wait()
		check(t, step, did, s, m, reqs)
	}
}

func check(t *testing.T, step int, did string, s *core.Semaphore, m *semModel, reqs []*semReq) {
	t.Helper()
	for i, r := range reqs {
		if r.res == nil {
			continue // a TryAcquire
		}
		var got string
		select {
		case err := <-r.res:
			switch {
			case err == nil:
				got = "granted"
			case errors.Is(err, context.Canceled):
				got = "canceled"
			default:
				t.Fatalf("step %d (%s): request %d returned %v", step, did, i, err)
			}
			r.res = nil
		default:
			got = "waiting"
		}
		want := r.state
		if want == "released" {
			want = "granted"
		}
		if got != "waiting" && got != want || got == "waiting" && want != "waiting" {
			t.Fatalf("step %d (%s): request %d (n=%d p=%v) is %s, want %s", step, did, i, r.n, r.p, got, want)
		}
	}
	want := core.SemaphoreStats{Limit: m.limit, InUse: m.inUse, Waiters: len(m.queue), Canceled: m.canceled}
	if got := s.Stats(); got != want {
		t.Fatalf("step %d (%s): Stats = %+v, want %+v", step, did, got, want)
	}
}
