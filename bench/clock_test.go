package bench_test

import (
	"testing"
	"time"
)

var clockSink time.Time

// BenchmarkClock measures one read of the wall clock (time.Now), which
// every observed event, a submit's pending age and a Semaphore waiter's
// aging pay: its cost differs between machines (a vDSO call on most Linux
// hosts, far more in some sandboxes), and the report quotes it where a
// miss is made of clock reads.
func BenchmarkClock(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		clockSink = time.Now()
	}
}
