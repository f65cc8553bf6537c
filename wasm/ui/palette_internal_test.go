package ui

import (
	"testing"

	"sluice/core"
	"sluice/core/trace"
)

// Every bar colour takes a label colour with a contrast of 4.5:1 or more
// (WCAG AA for text).
func TestLabelContrast(t *testing.T) {
	shades := append([]shade{shadeHigh, shadeNormal, shadeLow, shadeHigher, shadeLower, shadeUnknown}, keyShades...)
	shades = append(shades, levelShades...)
	colors := []string{colCanceledBg}
	for _, s := range shades {
		colors = append(colors, s.strong, s.soft)
	}
	for _, c := range colors {
		if got := contrast(c, textOn(c)); got < 4.5 {
			t.Errorf("label %s on bar %s: contrast %.2f:1, want >= 4.5:1", textOn(c), c, got)
		}
	}
}

// Every bar stands out from the timeline's background, white or the
// stripe of every other lane, at 3:1 or more (WCAG 1.4.11, non-text
// contrast): a running bar by its strong colour, an ended one by its
// outline in the strong colour, a canceled one by its grey outline, and
// the end caps of failed and panicked ones by their colour.
func TestBarContrast(t *testing.T) {
	shades := append([]shade{shadeHigh, shadeNormal, shadeLow, shadeHigher, shadeLower, shadeUnknown}, keyShades...)
	shades = append(shades, levelShades...)
	colors := []string{colCanceled, colFailed, colPanicked}
	for _, s := range shades {
		colors = append(colors, s.strong)
	}
	for _, c := range colors {
		for _, bg := range []string{colBackground, colStripe} {
			if got := contrast(c, bg); got < 3 {
				t.Errorf("bar colour %s on background %s: contrast %.2f:1, want >= 3:1", c, bg, got)
			}
		}
	}
	b := &barPass{f: Frame{ColorBy: "priority"}}
	for _, st := range []core.TaskState{core.TaskSucceeded, core.TaskFailed, core.TaskPanicked, core.TaskCanceled} {
		fill, _, edge := b.shade(&trace.Task{State: st, Priority: core.Normal})
		if contrast(fill, colBackground) < 3 && (edge == "" || contrast(edge, colBackground) < 3) {
			t.Errorf("a %v bar of fill %s has no outline of 3:1 (edge %q)", st, fill, edge)
		}
	}
}
