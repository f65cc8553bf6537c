package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind describes one primitive the playground runs: what its setup holds,
// how its scenario is checked, how the runner makes and submits its tasks
// (through its backend), how its lanes and counters read, the words the
// page uses for it, and the Go code of its program. The runner, the code
// generator and the page ask it; nothing else branches on which primitive
// a scenario runs. Each primitive's Kind is defined in the file of its
// backend, and a new primitive is a new such file plus a preset.
type Kind struct {
	ID    string // Scenario.Primitive: "workqueue"
	Title string // as the page's picker offers it: "WorkQueue"
	Noun  string // in a sentence: "work queue"

	// The limit (Scenario.Limit): what it is called in a problem, its
	// field's label and hint, and its lowest value (0 where 0 means no
	// limit). Resizable says whether it can change while the run goes on
	// (an action "limit").
	LimitWhat, LimitLabel, LimitHint string
	MinLimit                         int
	Resizable                        bool

	// The setup's options the primitive reads: the semaphore's aging, the
	// pending tasks' capacity (with its label and hint), the keyed
	// queue's idle timeout.
	Aging, Idle                 bool
	CapacityLabel, CapacityHint string // "": no capacity

	// Groups is the noun of an entry of Scenario.Consumers ("consumer",
	// "queue"), or "" when the primitive has none: several consumers or
	// work queues sharing one semaphore. GroupSize names an entry's size
	// ("concurrency"), GroupSizeTitle its option, GroupsLabel the list's
	// label, DefaultGroups what a scenario switched to this primitive
	// starts with. A group's tasks take its priority.
	Groups, GroupSize, GroupSizeTitle, GroupsLabel string
	DefaultGroups                                  []Consumer

	// What a task carries: a key (Burst.Keys or KeyNames), a weight in
	// tokens (Burst.Weight). Slots says that its tasks run in numbered
	// worker slots, known once a task starts, which the event log names
	// (a group's name comes first); Tokens that its lanes and its work in
	// flight count tokens.
	Keys, Weights, Slots, Tokens bool

	// Signature writes the constructor call the scenario's primitive is
	// made with, as the page's heading shows it: "NewWorkQueue(3)".
	Signature func(s Scenario) string

	newBackend func(r *Runner) backend
	// code writes the making of the primitive in the program, and the
	// functions the program's run calls (see gen.primitive).
	code func(g *gen, s Scenario)
	// runtime is more of the program's code that the primitive needs,
	// the same for every scenario, or "".
	runtime string
}

// kinds lists the primitives in the order the playground offers them.
var kinds = []*Kind{semaphoreKind, workQueueKind, processorKind, keyedKind, consumeKind, sharedKind}

// Kinds returns the primitives the playground runs, in the order it offers
// them.
func Kinds() []*Kind { return kinds }

// KindOf returns the Kind of the primitive with the given ID, or nil.
func KindOf(id string) *Kind {
	for _, k := range kinds {
		if k.ID == id {
			return k
		}
	}
	return nil
}

// GroupName returns the name of entry i of a scenario's Consumers,
// counting from 0: "consumer-1", "queue-2". It is the Key of its tasks'
// events.
func (k *Kind) GroupName(i int) string { return k.Groups + "-" + strconv.Itoa(i+1) }

// HasGroups reports whether the primitive runs several consumers or work
// queues over one shared semaphore (Scenario.Consumers): their events
// carry the group's name as Key, their lanes are grouped by it, and their
// tasks take its priority.
func (k *Kind) HasGroups() bool { return k.Groups != "" }

// problems lists what is wrong with s as a scenario of this primitive,
// beyond what every scenario is checked for.
func (k *Kind) problems(s Scenario, v *validator) {
	if s.Limit < k.MinLimit || s.Limit > MaxLimit {
		v.addf("%s", limitProblem(k.LimitWhat, s.Limit, k.MinLimit))
	}
	if k.HasGroups() && len(s.Consumers) == 0 {
		v.addf("a %s scenario needs at least one %s", k.ID, k.groupNoun())
	}
	if len(s.Consumers) > MaxConsumers {
		v.addf("at most %d %ss can share the semaphore; this scenario has %d", MaxConsumers, k.groupNoun(), len(s.Consumers))
	}
	for i, c := range s.Consumers {
		if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
			v.addf("%s %d: %s must be between 1 and %s; it is %s", k.groupWord(), i+1, k.groupSize(), num(MaxConcurrency), num(c.Concurrency))
		}
	}
}

// burstProblems lists what is wrong with b as a burst of this primitive
// in s.
func (k *Kind) burstProblems(s Scenario, b Burst, v *validator) {
	if k.Keys && b.Keys == 0 && len(b.KeyNames) == 0 {
		v.addf("a keyed burst needs a key set: say how many keys (device-1 to device-N) its tasks use, or name them")
	}
	if k.Weights && b.Weight > s.Limit && s.Limit >= 1 {
		v.addf("each task asks for %d tokens but the semaphore has only %d: raise the limit or lower the weight", b.Weight, s.Limit)
	}
	if k.HasGroups() && b.Consumer > len(s.Consumers) {
		v.addf("it is sent to %s %d, but there are only %d", k.Groups, b.Consumer, len(s.Consumers))
	}
}

// The words for an entry of Scenario.Consumers, also for a primitive that
// has none (whose scenario should then have none).
func (k *Kind) groupNoun() string {
	if k.Groups == "queue" {
		return "work queue"
	}
	return "consumer"
}

func (k *Kind) groupWord() string {
	if k.Groups == "" {
		return "consumer"
	}
	return k.Groups
}

func (k *Kind) groupSize() string {
	if k.GroupSize == "" {
		return "concurrency"
	}
	return k.GroupSize
}

// Fit adjusts a scenario switched to this primitive so that it still
// runs: it gets groups if it needs them, its bursts keys if they need
// them, weights no higher than the limit, and sends to groups that exist;
// limit changes go when the limit cannot change.
func (k *Kind) Fit(sc *Scenario) {
	if k.HasGroups() && len(sc.Consumers) == 0 {
		sc.Consumers = append([]Consumer(nil), k.DefaultGroups...)
	}
	bursts := make([]*Burst, 0, len(sc.Bursts)+len(sc.Log))
	for i := range sc.Bursts {
		bursts = append(bursts, &sc.Bursts[i])
	}
	for _, st := range sc.Log {
		if st.Burst != nil {
			bursts = append(bursts, st.Burst)
		}
	}
	for _, b := range bursts {
		if k.Keys && b.Keys < 1 && len(b.KeyNames) == 0 {
			b.Keys = 4
		}
		if k.Weights && b.Weight > sc.Limit {
			b.Weight = sc.Limit
		}
		if k.HasGroups() && b.Consumer > len(sc.Consumers) {
			b.Consumer = 0
		}
	}
	if k.Resizable {
		return
	}
	for i := 0; i < len(sc.Actions); i++ {
		if sc.Actions[i].Do == ActionLimit {
			sc.Actions = append(sc.Actions[:i], sc.Actions[i+1:]...)
			i--
		}
	}
	log := sc.Log[:0]
	for _, st := range sc.Log {
		if st.Do != ActionLimit {
			st.Seq = len(log) + 1
			log = append(log, st)
		}
	}
	sc.Log = log
	if len(sc.Log) == 0 {
		sc.Log = nil
	}
}

// Trim drops the fields of a person's burst that this primitive does not
// read, and the priority mix when levels replace it.
func (k *Kind) Trim(b *Burst) {
	if len(b.Levels) > 0 {
		b.Priority = PriorityMix{}
	}
	if k.HasGroups() {
		b.Levels = nil
	}
	if len(b.KeyNames) > 0 {
		b.Keys = 0
	}
	if !k.Keys {
		b.Keys, b.KeyNames = 0, nil
	}
	if !k.Weights {
		b.Weight = 0
	}
	if !k.HasGroups() {
		b.Consumer = 0
	}
}

// optList writes a constructor's options after its first argument.
func optList(opts []string) string {
	if len(opts) == 0 {
		return ""
	}
	return ", " + strings.Join(opts, ", ")
}

// clockText writes ms milliseconds as the page shows a span in a
// signature: "250ms", "1s", "1m30s".
func clockText(n int) string {
	return fmt.Sprint(ms(n))
}
