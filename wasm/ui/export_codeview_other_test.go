//go:build !(js && wasm)

package ui

// CodeRenders returns how many times the page's code card has rendered,
// and the program it shows; -1 before it is mounted.
func CodeRenders(p *Play) int {
	if p.codeView == nil {
		return -1
	}
	return p.codeView.renders
}
