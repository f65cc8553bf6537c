package ui_test

import (
	"fmt"
	"strings"
	"testing"

	"sluice/core"
	"sluice/wasm/ui"
)

func TestParseLevels(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // the levels, or the error's text
	}{
		{"", "[]"},
		{"5, -3, 100", "[5 -3 100]"},
		{" +7 ;-1 0", "[7 -1 0]"},
		{"5, high", `"high" is not a whole number`},
		{"1, 2, 1", "priority level 1 is listed twice"},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "at most 16 priority levels; this one lists 17"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			levels, err := ui.ParseLevels(tc.text)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = fmt.Sprint(levels)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("ParseLevels(%q) = %s, want %s", tc.text, got, tc.want)
			}
		})
	}
}

func TestParseKeyNames(t *testing.T) {
	for _, tc := range []struct {
		text, want string
	}{
		{"", ""},
		{"eu-west, us-east ,, 東京", "eu-west|us-east|東京"},
		{"ap south, eu", "ap south|eu"},
		{"a, b, a", `key "a" is named twice`},
		{"ok, " + strings.Repeat("x", 65), "is 65 bytes long; a key name has at most 64"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			names, err := ui.ParseKeyNames(tc.text)
			got := strings.Join(names, "|")
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
				t.Errorf("ParseKeyNames(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestLevelShadeByRank(t *testing.T) {
	classic := []core.Priority{core.Low, core.Normal, core.High}
	if ui.LevelShade(classic, core.High) == ui.LevelShade(classic, core.Low) {
		t.Errorf("High and Low share a colour")
	}
	custom := []core.Priority{-3, 5, 100}
	seen := make(map[string]core.Priority)
	for _, p := range custom {
		c := ui.LevelShade(custom, p)
		if q, ok := seen[c]; ok {
			t.Errorf("priorities %d and %d share colour %s", q, p, c)
		}
		seen[c] = p
	}
	// Sixteen levels get sixteen colours; a priority between levels takes
	// its rank's colour, beyond them the last.
	var many []core.Priority
	for i := range 16 {
		many = append(many, core.Priority(i*1000-7000))
	}
	colours := make(map[string]bool)
	for _, p := range many {
		colours[ui.LevelShade(many, p)] = true
	}
	if len(colours) != 16 {
		t.Errorf("16 levels got %d colours, want 16", len(colours))
	}
	if got, want := ui.LevelShade(many, 1_000_000), ui.LevelShade(many, many[15]); got != want {
		t.Errorf("a priority above every level = %s, want the highest level's %s", got, want)
	}
}
