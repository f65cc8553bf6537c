package ui_test

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestReplayedMessages plays a run with bursts, cancels, a limit change
// and a drain, then opens its link, as a reload does: the replay's
// messages are the live run's, one for one, save that what the person
// did is said to be done by the log's entry that recorded it.
func TestReplayedMessages(t *testing.T) {
	oneThread(t)
	for _, id := range []string{"semaphore", "workqueue-cancel", "consumers"} {
		t.Run(id, func(t *testing.T) {
			ps, ok := sim.PresetByID(id)
			if !ok {
				t.Fatalf("no preset %q", id)
			}
			s, err := ui.NewSession(ps.Scenario, ps.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.SetSpeed(3)
			s.SetPlaying(true)
			frames := func(n int) {
				for range n {
					s.Frame(16667*time.Microsecond, ui.SpanFor)
				}
			}
			frames(12)
			if err := s.Submit(sim.Burst{Count: 8, MinMS: 200, MaxMS: 700, Outcome: sim.OutcomeMix{OK: 2, Fail: 1}}); err != nil {
				t.Fatal(err)
			}
			frames(6)
			for i := 1; i <= 30; i++ {
				if s.Cancel(fmt.Sprintf("t%d", i)) == nil {
					break
				}
			}
			frames(3)
			if err := s.SetLimit(2); err != nil {
				t.Fatal(err)
			}
			frames(3)
			if err := s.CancelAll(); err != nil {
				t.Fatal(err)
			}
			if err := s.Submit(sim.Burst{Count: 6, MinMS: 100, MaxMS: 400}); err != nil {
				t.Fatal(err)
			}
			frames(3)
			if err := s.Drain(); err != nil {
				t.Fatal(err)
			}
			frames(2)
			if err := s.Submit(sim.Burst{Count: 2, MinMS: 100, MaxMS: 400}); err != nil {
				t.Fatal(err)
			}
			first := runToEnd(t, s)

			again, err := sim.Decode(first.Link)
			if err != nil {
				t.Fatalf("the link does not decode: %v", err)
			}
			r, err := ui.NewSession(again, "")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			second := runToEnd(t, r)
			recorded := regexp.MustCompile(`the recorded action \(entry \d+ of the link's log\)`)
			lines := func(ms []sim.Message) []string {
				var out []string
				for _, m := range ms {
					out = append(out, fmt.Sprintf("%v %v %s %s", m.At, m.Error, m.Task, recorded.ReplaceAllString(m.Text, "you")))
				}
				return out
			}
			want, got := lines(first.Messages), lines(second.Messages)
			if len(want) == 0 {
				t.Fatal("the live run has no messages; the test wants some")
			}
			n := max(len(got), len(want))
			for i := range n {
				var g, w string
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if g != w {
					t.Errorf("message %d: replayed %q, live %q", i, g, w)
				}
			}
			if first.MessageCount != second.MessageCount {
				t.Errorf("replayed message count = %d, live %d", second.MessageCount, first.MessageCount)
			}
		})
	}
}
