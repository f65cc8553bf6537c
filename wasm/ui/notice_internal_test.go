package ui

import (
	"testing"
	"time"
)

// TestExpireNotice checks that an "ok" or "info" toast comes down after
// noticeFor, counted from when it was first seen, and that an error stays.
func TestExpireNotice(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, kind := range []string{"ok", "info", "error"} {
		t.Run(kind, func(t *testing.T) {
			p := &Play{notice: notice{"first", kind}}
			p.expireNotice(t0)
			p.expireNotice(t0.Add(noticeFor - time.Millisecond))
			if p.notice.Text == "" {
				t.Fatalf("notice taken down before %v", noticeFor)
			}
			// A new notice starts its own time.
			p.notice = notice{"second", kind}
			p.expireNotice(t0.Add(noticeFor))
			if p.notice.Text != "second" {
				t.Fatalf("a notice replaced at %v = %+v, want it up", noticeFor, p.notice)
			}
			p.expireNotice(t0.Add(2 * noticeFor))
			if up, want := p.notice.Text != "", kind == "error"; up != want {
				t.Errorf("%s notice up after %v: %v, want %v", kind, noticeFor, up, want)
			}
		})
	}
}
