// Package tracetest holds trace files for the tests of the packages that
// read them: the playground's session and its end-to-end tests.
package tracetest

// Chromium is a trace as Chromium writes it, 0.25 s long (timestamps from
// 1,000,000 µs): two processes' named threads, a nested slice, a slice
// that never ends, and instant, flow, async and counter events, which a
// task timeline does not show.
const Chromium = `{"traceEvents":[
	{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"Browser"}},
	{"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"Renderer"}},
	{"ph":"M","pid":1,"tid":11,"name":"thread_name","args":{"name":"CrBrowserMain"}},
	{"ph":"M","pid":2,"tid":21,"name":"thread_name","args":{"name":"CrRendererMain"}},
	{"ph":"X","pid":1,"tid":11,"ts":1000000,"dur":100000,"name":"RunTask"},
	{"ph":"X","pid":1,"tid":11,"ts":1010000,"dur":50000,"name":"Layout"},
	{"ph":"X","pid":1,"tid":11,"ts":1120000,"dur":10000,"name":"Paint"},
	{"ph":"B","pid":2,"tid":21,"ts":1005000,"name":"Parse"},
	{"ph":"i","pid":1,"tid":11,"ts":1015000,"name":"mark","s":"t"},
	{"ph":"i","pid":1,"tid":11,"ts":1016000,"name":"mark","s":"t"},
	{"ph":"s","pid":1,"tid":11,"ts":1017000,"id":1,"name":"flow"},
	{"ph":"f","pid":2,"tid":21,"ts":1018000,"id":1,"name":"flow","bp":"e"},
	{"ph":"b","pid":1,"tid":11,"ts":1019000,"id":"0x1","cat":"net","name":"Request"},
	{"ph":"C","pid":1,"tid":11,"ts":1020000,"name":"heap","args":{"used":5}},
	{"ph":"i","pid":2,"tid":21,"ts":1250000,"name":"last","s":"g"}
]}`
