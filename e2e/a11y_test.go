//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
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
// details open, with a scenario's description cut short and whole, with a
// loaded trace, and against the embed: no serious or critical violation.
func TestAccessibility(t *testing.T) {
	t.Parallel()
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

	// The focus ring of a primary button, reached by the keyboard,
	// contrasts 3:1 or more with what is around it.
	var ring struct {
		Style string  `json:"style"`
		Width float64 `json:"width"`
		Color string  `json:"color"`
		Back  string  `json:"back"`
	}
	b.run(t, "tabbing to Add burst",
		chromedp.Focus("#add-one", chromedp.ByQuery),
		chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(input.ModifierShift)),
		chromedp.Evaluate(`(() => { const el = document.activeElement, cs = getComputedStyle(el);
			let p = el.parentElement, back = "rgba(0, 0, 0, 0)";
			while (p && (back === "rgba(0, 0, 0, 0)" || back === "transparent")) { back = getComputedStyle(p).backgroundColor; p = p.parentElement; }
			return {style: el.id + " " + cs.outlineStyle, width: parseFloat(cs.outlineWidth), color: cs.outlineColor, back: back}; })()`, &ring),
	)
	if !strings.HasPrefix(ring.Style, "add-burst ") || strings.HasSuffix(ring.Style, " none") || ring.Width < 2 {
		t.Errorf("focus ring of Add burst = %+v, want a visible outline of 2 px or more", ring)
	} else if c := contrastRGB(ring.Color, ring.Back); c < 3 {
		t.Errorf("focus ring %s on %s: contrast %.2f:1, want >= 3:1", ring.Color, ring.Back, c)
	}

	// A description cut to two lines with its More button, the same shown
	// whole, and a loaded trace (whose code view has no code).
	b.run(t, "choosing a preset with a long description",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
		chromedp.Click("#preset-shared-limit", chromedp.ByQuery),
		chromedp.WaitVisible(`#scenario-about[data-clamped] #desc-more`, chromedp.ByQuery),
	)
	reportAxe(t, "/ with a description cut short", b.runAxe(t))
	b.run(t, "showing the whole description",
		chromedp.Click("#desc-more", chromedp.ByQuery),
		chromedp.WaitVisible(`#scenario-about.open`, chromedp.ByQuery),
	)
	reportAxe(t, "/ with a whole description", b.runAxe(t))
	b.run(t, "loading a trace",
		chromedp.SetUploadFiles("#load-trace", []string{foreignTrace(t, 40, 2, 0, 100_000, 80_000)}, chromedp.ByQuery),
		chromedp.WaitVisible(`#code-back-to-live`, chromedp.ByQuery),
	)
	reportAxe(t, "/ with a loaded trace", b.runAxe(t))

	b.run(t, "loading the embed",
		chromedp.Navigate(base+"/embed"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
	)
	reportAxe(t, "/embed", b.runAxe(t))
	b.checkErrors(t)
}

// contrastRGB returns the WCAG contrast ratio of two CSS colours written
// "rgb(r, g, b)" or "rgba(r, g, b, a)" (alpha ignored), or 0.
func contrastRGB(a, b string) float64 {
	lum := func(c string) (float64, bool) {
		var r, g, bl float64
		c = strings.NewReplacer("rgba(", "", "rgb(", "", ")", "", ",", " ").Replace(c)
		if n, _ := fmt.Sscan(c, &r, &g, &bl); n != 3 {
			return 0, false
		}
		ch := func(v float64) float64 {
			v /= 255
			if v <= 0.03928 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(bl), true
	}
	la, ok1 := lum(a)
	lb, ok2 := lum(b)
	if !ok1 || !ok2 {
		return 0
	}
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}
