package sim

import (
	"fmt"
	"time"

	"sluice/core"
)

// observeEvent is the observer given to the semaphore, work queue,
// processor and keyed queue: it finds the task by the name it was given
// with core.WithName, updates the bookkeeping, and passes the event on
// with Task set to the task's number.
func (r *Runner) observeEvent(e core.Event) {
	errText := errorText(e.Err) // the primitive's or the task's code: outside the lock
	r.mu.Lock()
	if e.Task != 0 {
		if t := r.byName(e.Name); t != nil {
			r.apply(t, &e, errText)
			e.Task = uint64(t.n)
		}
	} else {
		r.applyPrimitive(&e)
	}
	r.mu.Unlock()
	r.forward(e)
	r.flush()
}

func (r *Runner) forward(e core.Event) {
	if r.observe != nil {
		r.observe(e)
	}
}

// apply updates t's bookkeeping with one of its events, whose error has
// the text errText. r.mu must be held.
func (r *Runner) apply(t *task, e *core.Event, errText string) {
	now := e.Time.Sub(Epoch)
	k := r.keyOf(t)
	switch e.Kind {
	case core.Enqueued:
		if t.phase != phSubmitting {
			return
		}
		r.set(t, func() {
			t.phase = phQueued
			if t.at < 0 {
				t.at = now
			}
		})
		r.enqueued++
		r.pending++
		if k != nil {
			k.pending++
		}
		if r.consume != nil {
			r.consume.cons[t.consumer].inFlight++
		}
	case core.Waiting:
		if t.phase == phQueued {
			r.set(t, func() { t.phase = phWaiting })
			r.waiting++
		}
	case core.Started:
		if !t.phase.pending() {
			return
		}
		r.leavePending(t, k)
		r.set(t, func() {
			t.phase = phRunning
			t.started = now
		})
		r.running++
		r.tokens += t.weight
		r.maxRun = max(r.maxRun, r.running)
		r.maxTok = max(r.maxTok, r.tokens)
		if k != nil {
			k.running++
		}
	case core.Finished, core.Failed, core.Canceled, core.Panicked:
		switch {
		case t.phase.pending():
			r.leavePending(t, k)
		case t.phase.running():
			r.running--
			r.tokens -= t.weight
			if k != nil {
				k.running--
			}
		default:
			return
		}
		if r.consume != nil {
			r.consume.cons[t.consumer].inFlight--
		}
		r.set(t, func() {
			t.phase = phEnded
			t.end = e.Kind
			t.err = errText
			t.ended = now
		})
		switch e.Kind {
		case core.Finished:
			r.outcomes[0]++
		case core.Failed:
			r.outcomes[1]++
			r.logTaskLocked(true, t, "%s failed: %s", t.name, t.err)
		case core.Canceled:
			r.outcomes[2]++
		case core.Panicked:
			r.outcomes[3]++
			if _, ok := e.Err.(*core.PanicError); ok {
				r.logTaskLocked(true, t, "%s panicked: %s (the %s released its slot and kept running)", t.name, errText, r.noun())
			} else {
				r.logTaskLocked(true, t, "%s panicked: %s", t.name, errText)
			}
		}
		r.checkDrained()
	}
}

// leavePending takes t, which leaves a pending phase, out of the pending
// counts. r.mu must be held.
func (r *Runner) leavePending(t *task, k *keyCount) {
	r.pending--
	if t.phase == phWaiting {
		r.waiting--
	}
	if k != nil {
		k.pending--
	}
}

// keyOf returns the counts of t's key for a keyed queue, or nil. r.mu
// must be held.
func (r *Runner) keyOf(t *task) *keyCount {
	if r.keys == nil {
		return nil
	}
	k := r.keys[t.key]
	if k == nil {
		k = new(keyCount)
		r.keys[t.key] = k
	}
	return k
}

// applyPrimitive updates the bookkeeping with an event that is about no
// task. r.mu must be held.
func (r *Runner) applyPrimitive(e *core.Event) {
	switch e.Kind {
	case core.Resized:
		r.limit = int(e.Weight)
	case core.LaneCreated:
		r.lanes++
	case core.LaneEvicted:
		r.lanes--
	case core.Closed:
		r.closedSeen = true
		r.logLocked(Message{At: r.now(), Text: fmt.Sprintf("the %s has stopped: every task it accepted has ended", r.noun())})
		r.checkDrained()
	default:
		return // a release of tokens not tied to a task: not the runner's
	}
	r.gen++
	r.nudge()
}

// checkDrained closes the Drain channel once the run has drained. r.mu
// must be held.
func (r *Runner) checkDrained() {
	if r.draining && !r.drainDone && r.b.drained(r) {
		r.drainDone = true
		close(r.drained)
		r.logLocked(Message{At: r.now(), Text: "drained: every accepted task has ended"})
	}
}

// errorText returns err's text, or "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// seconds writes d as a person reads a short span, such as "1.2 s".
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.3g s", d.Seconds())
}

// PriorityName names a priority as the event log does ("High", "Normal",
// "Low", or "priority 5"), for the page.
func PriorityName(p core.Priority) string { return priorityName(p) }
