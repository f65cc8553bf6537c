package core

// SetSpinners sets how many workers of the queues made afterwards may spin
// for work at once (a quarter of GOMAXPROCS by default), and returns the
// function that restores the default.
func SetSpinners(n int) (restore func()) {
	old := spinners
	spinners = func() int { return n }
	return func() { spinners = old }
}
