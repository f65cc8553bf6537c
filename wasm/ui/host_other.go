//go:build !(js && wasm)

package ui

// watchHeight does nothing outside the browser.
func watchHeight() (stop func(), err error) { return func() {}, nil }
