//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// violation is what axe-core reports of a failed rule.
type violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// runAxe injects axe-core (e2e/testdata/axe.min.js, a pinned copy that is
// never served to users) into the page and returns its serious and
// critical violations.
func (b *browser) runAxe(t *testing.T) []violation {
	t.Helper()
	src, err := os.ReadFile("testdata/axe.min.js")
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	var found []violation
	b.run(t, "running axe-core",
		chromedp.Evaluate(string(src)+";\ntrue", &ok),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then((r) => r.violations
			.filter((v) => v.impact === "serious" || v.impact === "critical")
			.map((v) => ({id: v.id, impact: v.impact, help: v.help,
				nodes: v.nodes.slice(0, 6).map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " ").slice(0, 200))})))`,
			&found, awaitPromise),
	)
	return found
}

func reportAxe(t *testing.T, page string, found []violation) {
	t.Helper()
	for _, v := range found {
		t.Errorf("%s: axe-core %s violation %s: %s\n  %s", page, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, "\n  "))
	}
}

// TestAccessibility runs axe-core against the playground, with a task's
// details open, and against the embed: no serious or critical violation.
func TestAccessibility(t *testing.T) {
	b := newBrowser(t)
	b.run(t, "loading the playground",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
	)
	reportAxe(t, "/", b.runAxe(t))

	x, y, name := b.pausedHit(t)
	var ok bool
	b.run(t, "opening "+name,
		chromedp.MouseClickXY(x, y),
		chromedp.Poll(sheetFor(name), &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	reportAxe(t, "/ with a task's details", b.runAxe(t))

	b.run(t, "loading the embed",
		chromedp.Navigate(base+"/embed"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
	)
	reportAxe(t, "/embed", b.runAxe(t))
	b.checkErrors(t)
}
