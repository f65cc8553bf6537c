package ui

// GoCodeOf returns the code view's program of sc, as a render draws it.
var GoCodeOf = goCode
