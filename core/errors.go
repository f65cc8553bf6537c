package core

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrClosed is returned by calls on a primitive that has been closed or is
// draining.
var ErrClosed = errors.New("core: closed")

// ErrFull is returned by TrySubmit when the pending queue is at capacity.
var ErrFull = errors.New("core: queue full")

// PanicError is the error a task's waiter receives when the task panicked.
// The panic does not propagate: the task's slot is released and the
// primitive keeps running.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the stack of the panicking goroutine
}

// Error reports the panic value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("core: task panicked: %v", e.Value)
}

// Unwrap returns the panic value when it is an error, so that errors.Is and
// errors.As see through a PanicError.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// call runs fn and turns a panic into a *PanicError. It never lets a panic
// escape, so the caller can always release the task's slot.
func call(ctx context.Context, fn func(context.Context) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx)
}

func isPanic(err error) bool {
	_, ok := err.(*PanicError)
	return ok
}
