package sim

import "slices"

// Lanes returns how many lanes a run of s can show at most: a lane per
// key its bursts can draw (keyed work), per handler goroutine or worker
// slot of its groups (consumers, shared work queues), or else per unit
// of the highest limit it can have (worker slots, semaphore tokens). The
// page reserves the timeline's height for them up front, so that the
// timeline (and an embed's frame) does not grow as lanes appear. It does
// not block.
func (k *Kind) Lanes(s Scenario) int {
	switch {
	case k.Keys:
		most := 0 // keys drawn by number: device-1..device-N
		var names []string
		for _, b := range s.AllBursts() {
			most = max(most, b.Keys)
			names = append(names, b.KeyNames...)
		}
		for i := range most {
			names = append(names, KeyName(i))
		}
		slices.Sort(names)
		return len(slices.Compact(names))
	case k.HasGroups():
		n := 0
		for _, c := range s.Consumers {
			n += c.Concurrency
		}
		return n
	}
	limit := s.Limit
	for _, a := range s.Actions {
		if a.Do == ActionLimit {
			limit = max(limit, a.N)
		}
	}
	for _, st := range s.Log {
		if st.Do == ActionLimit {
			limit = max(limit, st.N)
		}
	}
	return limit
}
