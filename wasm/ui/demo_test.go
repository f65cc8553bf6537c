package ui_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/ui"
)

// attr returns the value of attribute name on the element with the given id
// in html, as go-app prints it.
func attr(t *testing.T, html, id, name string) string {
	t.Helper()
	tag := regexp.MustCompile(`<[a-z]+ [^>]*\bid="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(html)
	if tag == "" {
		t.Fatalf("no element #%s in:\n%s", id, html)
	}
	m := regexp.MustCompile(`\s` + regexp.QuoteMeta(name) + `(="([^"]*)")?[\s>]`).FindStringSubmatch(tag)
	switch {
	case m == nil:
		t.Fatalf("#%s has no %s: %s", id, name, tag)
	case m[1] == "":
		return "true" // go-app prints attributes whose value is "true" bare
	}
	return m[2]
}

func TestDemo(t *testing.T) {
	clientTest(t, func(t *testing.T) {
		d := &ui.Demo{}
		disp := app.NewClientTester(d) // mounts d, which starts a run
		defer disp.Close()

		// Consume waits for the run and applies its updates.
		disp.Consume()
		html := app.HTMLString(d)
		checks := []struct{ id, name, want string }{
			{"demo", "data-mounted", "true"},
			{"demo", "data-phase", "done"},
			{"demo", "data-run", "1"},
			{"running", "data-value", "0"},
			{"max-running", "data-value", "2"},
			{"done", "data-value", "6"},
		}
		for i := 1; i <= ui.DemoTasks; i++ {
			checks = append(checks, struct{ id, name, want string }{fmt.Sprintf("task-%d", i), "data-state", "done"})
		}
		for _, c := range checks {
			if got := attr(t, html, c.id, c.name); got != c.want {
				t.Errorf("#%s %s = %q, want %q", c.id, c.name, got, c.want)
			}
		}
		if n := strings.Count(html, `class="task `); n != ui.DemoTasks {
			t.Errorf("%d task rows, want %d", n, ui.DemoTasks)
		}
	})
}

func TestPages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		page   app.UI
		chrome bool
	}{
		{"playground", &ui.Playground{}, true},
		{"embed", &ui.Embed{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Server-side pre-rendering: nothing runs, the demo shows its frame.
			disp := app.NewServerTester(tc.page)
			defer disp.Close()
			html := app.HTMLString(tc.page)
			if got := attr(t, html, "demo", "data-mounted"); got != "false" {
				t.Errorf("pre-rendered #demo data-mounted = %q, want false", got)
			}
			if got := strings.Contains(html, `class="site-head"`); got != tc.chrome {
				t.Errorf("page chrome shown = %v, want %v", got, tc.chrome)
			}
		})
	}
}
