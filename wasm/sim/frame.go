package sim

import (
	"math"
	"time"
)

// Speed bounds: the playground plays a run between a tenth of real time
// and ten times real time.
const (
	MinSpeed = 0.1
	MaxSpeed = 10.0
)

// MaxFrame is the most real time one animation frame may account for:
// a tab that was in the background does not jump ahead by minutes.
const MaxFrame = 100 * time.Millisecond

// FrameStep returns how much virtual time to advance for an animation
// frame that took frame of real time, played at speed: frame (capped at
// [MaxFrame]) times speed (clamped to [MinSpeed, MaxSpeed]; 0 or NaN means 1).
// A negative frame counts as none.
func FrameStep(frame time.Duration, speed float64) time.Duration {
	if speed == 0 || math.IsNaN(speed) {
		speed = 1
	}
	speed = min(max(speed, MinSpeed), MaxSpeed)
	frame = min(max(frame, 0), MaxFrame)
	return time.Duration(float64(frame) * speed)
}
