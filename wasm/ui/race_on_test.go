//go:build race

package ui_test

// raceEnabled: the race detector perturbs the scheduler, so that the
// events of one instant (a cancel-all's, tasks started together) may be
// reported in another order, and take other free lanes, from run to run.
const raceEnabled = true
