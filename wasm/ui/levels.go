package ui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sluice/core"
	"sluice/wasm/sim"
)

// levelShades colour priorities by rank when a run has levels other than
// Low, Normal and High: lowest first, from teal through blue and violet to
// red and orange, so that the usual Low, Normal and High keep their hues
// roughly and neighbouring levels differ.
var levelShades = []shade{
	{"#0d9488", "#5eead4"}, // teal
	{"#0891b2", "#67e8f9"}, // cyan
	{"#0369a1", "#7dd3fc"}, // sky
	{"#2563eb", "#93c5fd"}, // blue
	{"#4f46e5", "#a5b4fc"}, // indigo
	{"#7c3aed", "#c4b5fd"}, // violet
	{"#9333ea", "#d8b4fe"}, // purple
	{"#c026d3", "#f0abfc"}, // fuchsia
	{"#db2777", "#f9a8d4"}, // pink
	{"#e11d48", "#fda4af"}, // rose
	{"#dc2626", "#fca5a5"}, // red
	{"#ea580c", "#fdba74"}, // orange
	{"#b45309", "#fcd34d"}, // amber
	{"#a16207", "#fde047"}, // yellow
	{"#4d7c0f", "#bef264"}, // lime
	{"#16a34a", "#86efac"}, // green
}

// classicLevels reports whether every level is Low, Normal or High, so
// that the usual three colours apply.
func classicLevels(levels []core.Priority) bool {
	for _, p := range levels {
		if p < core.Low || p > core.High {
			return false
		}
	}
	return true
}

// levelShade returns the colour of priority p among levels (sorted, each
// once): the usual colours when the levels are Low, Normal and High,
// otherwise a colour of levelShades by p's rank among the levels, spread
// over the whole palette. A priority that is not a level takes the rank
// it would have.
func levelShade(levels []core.Priority, p core.Priority) shade {
	if classicLevels(levels) {
		return priorityShade(p)
	}
	return levelShades[levelIndex(levels, p)]
}

// levelIndex returns the index in levelShades of priority p among
// levels that are not classic; web/sluice.css has a class "lv-N" for each.
func levelIndex(levels []core.Priority, p core.Priority) int {
	n := len(levels)
	if n <= 1 {
		return 3
	}
	rank, _ := slices.BinarySearch(levels, p)
	rank = min(rank, n-1)
	return rank * (len(levelShades) - 1) / (n - 1)
}

// levelClass is the CSS class that colours a legend swatch or a dot like
// priority p among levels.
func levelClass(levels []core.Priority, p core.Priority) string {
	return "lv-" + strconv.Itoa(levelIndex(levels, p))
}

// addLevel adds p to levels, kept sorted and each once.
func addLevel(levels []core.Priority, p core.Priority) []core.Priority {
	i, found := slices.BinarySearch(levels, p)
	if found {
		return levels
	}
	return slices.Insert(levels, i, p)
}

// burstLevels adds the priorities b's tasks can get to levels.
func burstLevels(levels []core.Priority, b sim.Burst) []core.Priority {
	if len(b.Levels) > 0 {
		for _, l := range b.Levels {
			levels = addLevel(levels, core.Priority(l))
		}
		return levels
	}
	mix := b.Priority
	if mix == (sim.PriorityMix{}) {
		return addLevel(levels, core.Normal)
	}
	for _, x := range []struct {
		w int
		p core.Priority
	}{{mix.Low, core.Low}, {mix.Normal, core.Normal}, {mix.High, core.High}} {
		if x.w > 0 {
			levels = addLevel(levels, x.p)
		}
	}
	return levels
}

// scenarioLevels returns the priorities sc's tasks can get, sorted.
func scenarioLevels(sc sim.Scenario) []core.Priority {
	var levels []core.Priority
	if k := sim.KindOf(sc.Primitive); k != nil && k.HasGroups() {
		for _, c := range sc.Consumers {
			levels = addLevel(levels, core.Priority(c.Priority))
		}
		return levels
	}
	for _, b := range sc.Bursts {
		levels = burstLevels(levels, b)
	}
	return levels
}

// maxShownLevels bounds the levels a loaded trace is coloured by; beyond
// it, ranks share colours anyway.
const maxShownLevels = 64

// traceLevels returns the priorities of a loaded trace's tasks, sorted.
func traceLevels(tasks []core.Priority) []core.Priority {
	var levels []core.Priority
	for _, p := range tasks {
		if len(levels) == maxShownLevels {
			break
		}
		levels = addLevel(levels, p)
	}
	return levels
}

// parseLevels reads the composer's list of priority levels, "5, -3, 100":
// whole numbers separated by commas or spaces. An empty text is no list.
func parseLevels(text string) ([]int, error) {
	var levels []int
	for _, f := range splitList(text) {
		n, err := strconv.Atoi(strings.TrimPrefix(f, "+"))
		if err != nil {
			return nil, fmt.Errorf("priority levels are whole numbers separated by commas, such as 5, -3, 100; %q is not a whole number", truncate(f, 20))
		}
		levels = append(levels, n)
	}
	return levels, checkList(sim.Burst{Levels: levels})
}

// parseKeyNames reads the composer's list of key names, "eu-west,
// us-east": names separated by commas, spaces around them dropped. An
// empty text is no list.
func parseKeyNames(text string) ([]string, error) {
	names := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == '\n' })
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	names = slices.DeleteFunc(names, func(s string) bool { return s == "" })
	return names, checkList(sim.Burst{KeyNames: names})
}

// splitList splits text at commas (and, between fields, at spaces).
func splitList(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == ';' })
}

// checkList returns sim's problems with the levels or key names of b,
// without the other fields of a burst.
func checkList(b sim.Burst) error {
	if len(b.Levels) == 0 && len(b.KeyNames) == 0 {
		return nil
	}
	b.Count, b.MinMS, b.MaxMS = 1, 1, 1
	probe := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Limit: 1, Bursts: []sim.Burst{b}}
	if len(b.KeyNames) > 0 {
		probe.Primitive, probe.Limit = sim.Keyed, 0
	}
	err := probe.Validate()
	var inv *sim.InvalidError
	if !errors.As(err, &inv) {
		return err
	}
	for i, p := range inv.Problems {
		inv.Problems[i] = strings.TrimPrefix(p, "burst 1: ")
	}
	return inv
}

// formatLevels writes a list of levels as the composer shows it.
func formatLevels(levels []int) string {
	s := make([]string, len(levels))
	for i, l := range levels {
		s[i] = strconv.Itoa(l)
	}
	return strings.Join(s, ", ")
}

// levelsDesc returns levels (sorted), highest first.
func levelsDesc(levels []core.Priority) []core.Priority {
	out := slices.Clone(levels)
	slices.Reverse(out)
	return out
}
