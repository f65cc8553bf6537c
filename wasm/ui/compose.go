package ui

import (
	"slices"

	"sluice/wasm/sim"
)

// composerFix is one input of the composer and what makes its value one
// a burst accepts: its value brought into its range.
type composerFix struct {
	id  string
	fix func(b *sim.Burst)
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }

// composerFixes lists the composer's number inputs, in the order they
// show.
var composerFixes = []composerFix{
	{"burst-count", func(b *sim.Burst) { b.Count = clampInt(b.Count, 1, sim.MaxTasks) }},
	{"burst-min", func(b *sim.Burst) { b.MinMS = clampInt(b.MinMS, 1, sim.MaxDurationMS) }},
	{"burst-max", func(b *sim.Burst) { b.MaxMS = clampInt(b.MaxMS, max(b.MinMS, 1), sim.MaxDurationMS) }},
	{"mix-low", func(b *sim.Burst) { b.Priority.Low = clampInt(b.Priority.Low, 0, sim.MaxMix) }},
	{"mix-normal", func(b *sim.Burst) { b.Priority.Normal = clampInt(b.Priority.Normal, 0, sim.MaxMix) }},
	{"mix-high", func(b *sim.Burst) { b.Priority.High = clampInt(b.Priority.High, 0, sim.MaxMix) }},
	{"mix-ok", func(b *sim.Burst) { b.Outcome.OK = clampInt(b.Outcome.OK, 0, sim.MaxMix) }},
	{"mix-fail", func(b *sim.Burst) { b.Outcome.Fail = clampInt(b.Outcome.Fail, 0, sim.MaxMix) }},
	{"mix-panic", func(b *sim.Burst) { b.Outcome.Panic = clampInt(b.Outcome.Panic, 0, sim.MaxMix) }},
	{"mix-slow", func(b *sim.Burst) { b.Outcome.Slow = clampInt(b.Outcome.Slow, 0, sim.MaxMix) }},
	{"burst-keys", func(b *sim.Burst) {
		if b.Keys != 0 || len(b.KeyNames) == 0 {
			b.Keys = clampInt(b.Keys, 1, sim.MaxKeys)
		}
	}},
	{"burst-weight", func(b *sim.Burst) { b.Weight = min(b.Weight, 1) }},
	{"burst-cancel-after", func(b *sim.Burst) { b.CancelAfterMS = clampInt(b.CancelAfterMS, 0, sim.MaxOffsetMS) }},
}

// burstFieldProblems returns the composer's inputs that burst b, for
// sc's run whose limit is now limit, is refused for, with the problem
// each causes, and the first of them in the form ("" when b is
// accepted). An input is at fault when bringing its value into range
// takes a problem away.
func burstFieldProblems(sc sim.Scenario, limit int, b sim.Burst) (map[string]string, string) {
	problems := func(b sim.Burst) []string {
		if ps := burstProblems(sc, limit, b); ps != nil {
			return ps
		}
		return nil
	}
	all := problems(b)
	if len(all) == 0 {
		return nil, ""
	}
	bad := make(map[string]string)
	first := ""
	for _, f := range composerFixes {
		fixed := b
		f.fix(&fixed)
		left := problems(fixed)
		if len(left) >= len(all) {
			continue
		}
		for _, p := range all {
			if !slices.Contains(left, p) {
				bad[f.id] = p
				break
			}
		}
		if first == "" {
			first = f.id
		}
	}
	if first == "" {
		// A problem of the burst as a whole: the form's first input.
		first = "burst-count"
		bad[first] = all[0]
	}
	return bad, first
}

// burstProblems lists the problems of b as checkBurst words them.
func burstProblems(sc sim.Scenario, limit int, b sim.Burst) []string {
	err := checkBurst(sc, limit, b)
	if err == nil {
		return nil
	}
	if inv, ok := err.(*sim.InvalidError); ok {
		return inv.Problems
	}
	return []string{err.Error()}
}
