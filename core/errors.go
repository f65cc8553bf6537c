package core

import (
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

// call is the one guarded call through which every user function runs: a
// task's function, a Consume handler, Semaphore.Do's function. It returns
// fn's error, or a *PanicError when fn panicked (the panic goes no
// further). When fn calls runtime.Goexit, call does not return: exited runs
// as the goroutine unwinds, so that the caller can end the task and give
// back its slot and tokens, and the goroutine then ends.
func call(fn func() error, exited func()) (err error) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
			return
		}
		exited() // runtime.Goexit: recover returns nil, and the unwinding goes on
	}()
	err = fn()
	returned = true
	return err
}

func isPanic(err error) bool {
	_, ok := err.(*PanicError)
	return ok
}
