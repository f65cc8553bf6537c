package core_test

import (
	"context"
	"testing"
	"testing/synctest"

	"sluice/core"
)

// fqProcessor is a Processor seen as an fqQueue: its input is the job,
// and its function returns fqOut(job) along with the job's error.
type fqProcessor struct {
	p *core.Processor[*fzJob, int]
}

type fqFuture struct{ *core.Future[int] }

func (f fqFuture) wait(ctx context.Context) (int, error) { return f.Wait(ctx) }

func (p fqProcessor) submit(ctx context.Context, j *fzJob, opts ...core.TaskOption) (fqHandle, error) {
	f, err := p.p.Submit(ctx, j, opts...)
	if f == nil {
		return nil, err
	}
	return fqFuture{f}, err
}

func (p fqProcessor) trySubmit(j *fzJob, opts ...core.TaskOption) (fqHandle, error) {
	f, err := p.p.TrySubmit(j, opts...)
	if f == nil {
		return nil, err
	}
	return fqFuture{f}, err
}

func (p fqProcessor) do(ctx context.Context, j *fzJob, opts ...core.TaskOption) (int, error) {
	return p.p.Process(ctx, j, opts...)
}

// goTask is Submit without the handle: Processor has no Go.
func (p fqProcessor) goTask(ctx context.Context, j *fzJob, opts ...core.TaskOption) error {
	_, err := p.submit(ctx, j, opts...)
	return err
}

func (p fqProcessor) setParallelism(n int)            { p.p.SetParallelism(n) }
func (p fqProcessor) close() error                    { return p.p.Close() }
func (p fqProcessor) drain(ctx context.Context) error { return p.p.Drain(ctx) }
func (p fqProcessor) stats() core.QueueStats          { return p.p.Stats() }

// FuzzProcessor runs the programs of FuzzWorkQueue against a Processor,
// with Process in place of Do and Futures in place of Tasks, and the same
// model: the same order, limits, outcomes, calls, Stats and events. It
// also checks each result: a call whose function ran and did not panic
// returns the function's result, also with an error; one that never ran,
// or panicked, returns the zero result.
func FuzzProcessor(f *testing.F) {
	for _, seed := range fqSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 4 || len(prog) > 600 {
			return
		}
		synctest.Test(t, func(t *testing.T) {
			runQueueProgram(t, prog, func(limit int, log *fzLog, opts []core.Option) fqQueue {
				fn := func(ctx context.Context, j *fzJob) (int, error) {
					err := log.run(ctx, j)
					return fqOut(j), err
				}
				return fqProcessor{core.NewProcessor(limit, fn, opts...)}
			}, true)
		})
	})
}
