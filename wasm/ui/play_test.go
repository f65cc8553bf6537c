package ui_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
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

// text returns the text inside the element with the given id.
func text(t *testing.T, html, id string) string {
	t.Helper()
	i := strings.Index(html, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no element #%s", id)
	}
	rest := html[i:]
	rest = rest[strings.IndexByte(rest, '>')+1:]
	depth, end := 0, 0
	for end < len(rest) {
		switch {
		case strings.HasPrefix(rest[end:], "</div>") && depth == 0:
			return strip(rest[:end])
		case strings.HasPrefix(rest[end:], "<div"):
			depth++
		case strings.HasPrefix(rest[end:], "</div>"):
			depth--
		}
		end++
	}
	return strip(rest)
}

func strip(s string) string {
	s = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, " ")
	return html.UnescapeString(strings.Join(strings.Fields(s), " "))
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
			// Server-side pre-rendering: nothing runs, the page shows its
			// frame with the first preset.
			disp := app.NewServerTester(tc.page)
			defer disp.Close()
			html := app.HTMLString(tc.page)
			if got := attr(t, html, "playground", "data-mounted"); got != "false" {
				t.Errorf("pre-rendered data-mounted = %q, want false", got)
			}
			if got := attr(t, html, "playground", "data-phase"); got != "loading" {
				t.Errorf("pre-rendered data-phase = %q, want loading", got)
			}
			if got := attr(t, html, "play", "disabled"); got != "true" {
				t.Errorf("pre-rendered play button disabled = %q, want true", got)
			}
			if !regexp.MustCompile(`<canvas [^>]*id="timeline"`).MatchString(html) {
				t.Errorf("no timeline canvas")
			}
			if got := strings.Contains(html, `class="site-head"`); got != tc.chrome {
				t.Errorf("page chrome shown = %v, want %v", got, tc.chrome)
			}
			if got := strings.Contains(html, `id="how-to-read"`); got != tc.chrome {
				t.Errorf("notes shown = %v, want %v", got, tc.chrome)
			}
			if strings.Contains(html, ` style="`) {
				t.Errorf("the page has a style attribute, which the Content-Security-Policy refuses")
			}
		})
	}
}

func TestEmbedSnippet(t *testing.T) {
	got := ui.EmbedSnippet(`http://h/embed?v=1#s="x"`)
	for _, want := range []string{`<iframe class="sluice-embed" src="http://h/embed?v=1#s=&quot;x&quot;"`, `e.data.sluice !== "height"`} {
		if !strings.Contains(got, want) {
			t.Errorf("snippet lacks %q:\n%s", want, got)
		}
	}
}

func TestSpeedSlider(t *testing.T) {
	for _, tc := range []struct {
		slider float64
		speed  float64
	}{{0, 0.1}, {50, 1}, {100, 10}, {65, 2}, {-5, 0.1}, {200, 10}} {
		if got := ui.SpeedSlider(tc.slider); got != tc.speed {
			t.Errorf("slider %v = %v×, want %v×", tc.slider, got, tc.speed)
		}
	}
	for _, s := range []float64{0.1, 1, 10} {
		if got := ui.SpeedSlider(float64(ui.SliderSpeed(s))); got != s {
			t.Errorf("speed %v× round trips to %v×", s, got)
		}
	}
}

func TestCheckBurst(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Limit: 2}
	if err := ui.CheckBurst(sc, 4, sim.Burst{Count: 1, MinMS: 1, MaxMS: 1, Weight: 3}); err != nil {
		t.Errorf("weight 3 with the limit raised to 4 = %v, want nil", err)
	}
	err := ui.CheckBurst(sc, 2, sim.Burst{Count: 20_000, MinMS: 5, MaxMS: 1, Weight: 3})
	var inv *sim.InvalidError
	if err == nil || !asInvalid(err, &inv) || len(inv.Problems) != 3 {
		t.Fatalf("CheckBurst = %v, want three problems", err)
	}
}

func asInvalid(err error, inv **sim.InvalidError) bool {
	i, ok := err.(*sim.InvalidError)
	*inv = i
	return ok
}
