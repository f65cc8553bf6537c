package bench_test

// The peers, imported here so that the module's requirements stay put while
// benchmark files come and go.
import (
	_ "github.com/alitto/pond/v2"
	_ "github.com/panjf2000/ants/v2"
	_ "github.com/sourcegraph/conc/pool"
	_ "go.uber.org/goleak"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/semaphore"
	_ "sluice/core"
)
