// Package bench measures sluice/core against peer libraries in one run:
// golang.org/x/sync (semaphore, errgroup), sourcegraph/conc, alitto/pond/v2,
// panjf2000/ants/v2 and a hand-written channel semaphore. It is a separate
// module so that core's own module needs none of them.
//
// Run it with "make bench" from the repository root.
package bench
