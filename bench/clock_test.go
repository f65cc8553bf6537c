package bench_test

import (
	"testing"
	"time"
)

var clockSink time.Time

var sinceSink time.Duration

// BenchmarkClock measures one read of the wall clock: time.Now, and
// time.Since from a fixed time, which reads the monotonic clock alone and
// is how core reads it (every observed event, a submit's pending age, a
// Semaphore waiter's aging). Its cost differs between machines (a vDSO
// call on most Linux hosts, far more in some sandboxes), and the report
// quotes it where a miss is made of clock reads.
func BenchmarkClock(b *testing.B) {
	b.Run("now", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			clockSink = time.Now()
		}
	})
	b.Run("since", func(b *testing.B) {
		b.ReportAllocs()
		origin := time.Now()
		for b.Loop() {
			sinceSink = time.Since(origin)
		}
	})
}
