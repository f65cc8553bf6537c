package core

import "strconv"

// Priority orders waiters and pending tasks: a higher value runs first, and
// tasks of equal priority run in arrival order. Any int is allowed; Low,
// Normal and High are the conventional levels.
type Priority int

// The conventional priority levels.
const (
	Low    Priority = -1
	Normal Priority = 0
	High   Priority = 1
)

// String returns "low", "normal" or "high" for the conventional levels and
// the number otherwise.
func (p Priority) String() string {
	switch p {
	case Low:
		return "low"
	case Normal:
		return "normal"
	case High:
		return "high"
	}
	return strconv.Itoa(int(p))
}
