package ui

import "testing"

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
