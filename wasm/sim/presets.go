package sim

// Preset is a ready-made scenario for one of the patterns the playground
// shows.
type Preset struct {
	ID          string // stable, for links and tests: "workqueue-cancel"
	Title       string // a short heading
	Description string // two or three sentences on what to watch
	Scenario    Scenario
	// Compare, in a comparison preset (see [ComparePresets]), is what run
	// B changes: the preset runs Scenario as run A and Scenario with
	// Compare's settings as run B, side by side (see [Compare]).
	Compare *Change
}

// Presets returns the playground's presets, one per pattern, in the order
// the page lists them. Each call returns fresh copies: changing one does
// not change the next call's.
func Presets() []Preset {
	return []Preset{
		{
			ID:    "workqueue-cancel",
			Title: "Work queue with cancellation",
			Description: "Three workers take tasks in priority order, so High tasks jump the queue. " +
				"The second burst's tasks give up 1.2 s after they are submitted, waiting or running, " +
				"and at 4 s the whole queue is closed: what is still pending never runs.",
			Scenario: Scenario{
				V: Version, Primitive: WorkQueue, Seed: 13, Limit: 3, ColorBy: "priority", Speed: 1,
				Bursts: []Burst{
					{Count: 8, MinMS: 400, MaxMS: 1200, Priority: PriorityMix{Normal: 3, High: 1}, Outcome: OutcomeMix{OK: 6, Fail: 1, Panic: 1}},
					{AtMS: 1500, Count: 6, MinMS: 600, MaxMS: 1500, Priority: PriorityMix{Low: 1, Normal: 2}, CancelAfterMS: 1200},
					{AtMS: 3000, Count: 6, MinMS: 500, MaxMS: 1000, Priority: PriorityMix{Normal: 1, High: 1}},
				},
				Actions: []Action{{AtMS: 4000, Do: ActionClose}},
			},
		},
		{
			ID:    "semaphore",
			Title: "Async semaphore",
			Description: "Three tokens, held by three requests, and waiters served strictly in arrival order. " +
				"At 0.2 s a heavy request asks for all three tokens: it waits at the head of the queue, and the small " +
				"requests that arrive behind it wait too, even while a token is free, so it never starves. " +
				"Once it holds the three tokens it runs alone.",
			Scenario: Scenario{
				V: Version, Primitive: Semaphore, Seed: 2, Limit: 3, ColorBy: "priority", Speed: 1,
				Bursts: []Burst{
					{Count: 3, MinMS: 400, MaxMS: 1200},
					{AtMS: 200, Count: 1, MinMS: 600, MaxMS: 600, Weight: 3},
					{AtMS: 300, Count: 6, MinMS: 200, MaxMS: 600},
				},
			},
		},
		{
			ID:    "priority-semaphore",
			Title: "Priority semaphore",
			Description: "Two tokens and a steady stream of High and Normal work: High waiters go first. " +
				"Three Low tasks arrive at the start; without aging they would wait for the stream to end, " +
				"but every second of waiting raises a waiter one level, so they get their turn.",
			Scenario: Scenario{
				V: Version, Primitive: Semaphore, Seed: 3, Limit: 2, AgingMS: 1000, ColorBy: "priority", Speed: 1,
				Bursts: priorityStream(),
			},
		},
		{
			ID:    "keyed-devices",
			Title: "Per-device serial processing",
			Description: "Readings from four devices: each device's readings run one at a time and in order, " +
				"the four devices at once. A device's lane is created with its first reading and evicted " +
				"after 1 s without work; it comes back when the device does, and at 6 s only two devices report.",
			Scenario: Scenario{
				V: Version, Primitive: Keyed, Seed: 10, Limit: 0, IdleMS: 1000, ColorBy: "key", Speed: 1,
				Bursts: []Burst{
					{Count: 12, MinMS: 200, MaxMS: 500, Keys: 4},
					{AtMS: 3000, Count: 6, MinMS: 200, MaxMS: 400, Keys: 4, Outcome: OutcomeMix{OK: 5, Fail: 1}},
					{AtMS: 6000, Count: 4, MinMS: 200, MaxMS: 400, Keys: 2},
				},
			},
		},
		{
			ID:    "consumers",
			Title: "Throttled consumers sharing a semaphore",
			Description: "Three consumers draw their slots from one semaphore of four tokens: a global limit. " +
				"consumer-1 is High (concurrency 3), consumer-2 Normal (2), consumer-3 Low (2); bars are " +
				"coloured by that priority. When tokens are short, the High consumer's messages get them " +
				"first and the Low consumer's wait; messages not yet taken by a consumer wait in its channel.",
			Scenario: Scenario{
				V: Version, Primitive: Consume, Seed: 5, Limit: 4, ColorBy: "priority", Speed: 1,
				Consumers: []Consumer{{Concurrency: 3, Priority: 1}, {Concurrency: 2}, {Concurrency: 2, Priority: -1}},
				Bursts: []Burst{
					{Count: 18, MinMS: 300, MaxMS: 900, Outcome: OutcomeMix{OK: 9, Fail: 1}},
					{AtMS: 2500, Count: 9, MinMS: 300, MaxMS: 600},
				},
			},
		},
		{
			ID:    "shared-limit",
			Title: "Two work queues sharing one global limit",
			Description: "Two work queues take a token from one semaphore of three for each task they run. " +
				"queue-1 (imports, Normal) runs at most 3 tasks at once, queue-2 (reports, High) at most 2, and the two " +
				"together at most 3: the shared limit. Imports arrive first and take all three tokens; the reports that " +
				"arrive at 0.5 s wait, and the next two tokens the imports free go to them, although imports have waited " +
				"longer. At 4 s the shared limit rises to 5: then only each queue's own limit holds it back, and 3 imports " +
				"and 2 reports run at once.",
			Scenario: Scenario{
				V: Version, Primitive: Shared, Seed: 7, Limit: 3, ColorBy: "priority", Speed: 1,
				Consumers: []Consumer{{Concurrency: 3}, {Concurrency: 2, Priority: 1}},
				Bursts: []Burst{
					{Count: 9, MinMS: 600, MaxMS: 1200, Consumer: 1},
					{AtMS: 500, Count: 6, MinMS: 400, MaxMS: 800, Consumer: 2, Outcome: OutcomeMix{OK: 5, Fail: 1}},
					{AtMS: 3500, Count: 6, MinMS: 600, MaxMS: 1200, Consumer: 1},
					{AtMS: 3500, Count: 4, MinMS: 400, MaxMS: 800, Consumer: 2},
				},
				Actions: []Action{{AtMS: 4000, Do: ActionLimit, N: 5}},
			},
		},
	}
}

// BlankID is the ID of the [Blank] preset.
const BlankID = "blank"

// Blank returns the blank slate: a preset that holds no work, for a
// person to compose their own. It is not one of [Presets], which each
// show a pattern, but [PresetByID] finds it.
func Blank() Preset {
	return Preset{
		ID:    BlankID,
		Title: "Blank slate",
		Description: "A work queue with four workers and no work yet: compose a burst (up to 10,000 tasks), " +
			"change the setup, and watch what you add. Reset brings you back to this empty run.",
		Scenario: Scenario{V: Version, Primitive: WorkQueue, Seed: 1, Limit: 4, ColorBy: "priority", Speed: 1},
	}
}

// priorityStream is the priority semaphore preset's work: three Low tasks
// at the start, and two High-or-Normal tasks every 400 ms for 4 s.
func priorityStream() []Burst {
	bs := []Burst{{Count: 3, MinMS: 300, MaxMS: 500, Priority: PriorityMix{Low: 1}}}
	return append(bs, streamFrom(0, 4000)...)
}

// streamFrom is two High-or-Normal tasks every 400 ms from from to until
// (ms).
func streamFrom(from, until int) []Burst {
	var bs []Burst
	for at := from; at < until; at += 400 {
		bs = append(bs, Burst{AtMS: at, Count: 2, MinMS: 300, MaxMS: 600, Priority: PriorityMix{Normal: 1, High: 1}})
	}
	return bs
}

// PresetByID returns the preset with the given ID, the blank one
// included, and false if there is none.
func PresetByID(id string) (Preset, bool) {
	for _, p := range append(append(Presets(), Blank()), ComparePresets()...) {
		if p.ID == id {
			return p, true
		}
	}
	return Preset{}, false
}

// ComparePresets returns the presets that compare two runs of the same
// work, each with what to watch, in the order the page lists them. Each
// call returns fresh copies.
func ComparePresets() []Preset {
	return []Preset{
		{
			ID:    "compare-aging",
			Title: "Aging off vs on",
			Description: "Two tokens, a steady stream of High and Normal work for 8 s, and three Low tasks at the start. " +
				"In A (no aging) two Low tasks take the free tokens and the third starves: it waits until the stream has ended, " +
				"over 9 s. In B every second of waiting raises a waiter one level, and it runs after under 3 s. " +
				"Watch the Low row's max wait, and what High pays for it.",
			Scenario: Scenario{
				V: Version, Primitive: Semaphore, Seed: 3, Limit: 2, ColorBy: "priority", Speed: 1,
				Bursts: append(priorityStream(), streamFrom(4000, 8000)...),
			},
			Compare: &Change{AgingMS: Int(1000)},
		},
		{
			ID:    "compare-parallelism",
			Title: "WorkQueue parallelism 2 vs 4 under a burst",
			Description: "A burst of 24 tasks hits a work queue at once, and 12 more at 2 s. With 2 workers (A) the " +
				"queue stays deep and the last tasks wait over 5 s; with 4 (B) the same tasks wait a third as long, and the " +
				"run ends at about 4 s instead of 8 s. Watch the waiting rows above the lanes, and the B/A column.",
			Scenario: Scenario{
				V: Version, Primitive: WorkQueue, Seed: 21, Limit: 2, ColorBy: "priority", Speed: 1,
				Bursts: []Burst{
					{Count: 24, MinMS: 200, MaxMS: 600, Priority: PriorityMix{Normal: 3, High: 1}},
					{AtMS: 2000, Count: 12, MinMS: 200, MaxMS: 600, Priority: PriorityMix{Normal: 3, High: 1}},
				},
			},
			Compare: &Change{Limit: Int(4)},
		},
		{
			ID:    "compare-shared-limit",
			Title: "Two queues with and without a shared limit",
			Description: "Two work queues: queue-1 (Normal, 3 workers) and queue-2 (High, 2 workers). In A they share " +
				"one semaphore of 3 tokens, so at most 3 tasks run at once in all, and queue-1's tasks wait while queue-2's run. " +
				"In B the shared limit is 5, the sum of their own limits: it never binds, and the queues run as if apart. " +
				"Watch max in flight (3 against 5) and the Normal row: what the global limit costs queue-1.",
			Scenario: Scenario{
				V: Version, Primitive: Shared, Seed: 7, Limit: 3, ColorBy: "priority", Speed: 1,
				Consumers: []Consumer{{Concurrency: 3}, {Concurrency: 2, Priority: 1}},
				Bursts: []Burst{
					{Count: 12, MinMS: 400, MaxMS: 900, Consumer: 1},
					{AtMS: 500, Count: 8, MinMS: 300, MaxMS: 700, Consumer: 2},
					{AtMS: 2500, Count: 6, MinMS: 400, MaxMS: 900, Consumer: 1},
					{AtMS: 2500, Count: 4, MinMS: 300, MaxMS: 700, Consumer: 2},
				},
			},
			Compare: &Change{Limit: Int(5)},
		},
	}
}
