//go:build e2e

package e2e

// readLogFn defines readLog(), which returns every row of the event log,
// each row's fields joined by " | ", oldest first. The list holds only the
// rows near its view (it is virtual), so readLog scrolls it through,
// reading the rows by their place in the whole list (aria-posinset, 1 for
// the newest), and then scrolls it back.
const readLogFn = `async function readLog() {
	const l = document.querySelector('#log');
	const total = Number(l.dataset.matches);
	const rows = new Map();
	const take = () => {
		for (const li of l.querySelectorAll('li[aria-posinset]')) {
			rows.set(Number(li.getAttribute('aria-posinset')), [...li.children].map(c => c.textContent.trim()).join(" | "));
		}
	};
	const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
	const top = l.scrollTop;
	take();
	for (let next = 1; rows.size < total; ) {
		while (rows.has(next)) next++;
		if (next > total) break;
		const row = l.querySelector('li[aria-posinset]');
		l.scrollTop = (next - 1) * (row ? row.offsetHeight : 24);
		for (let i = 0; i < 300 && !l.querySelector('li[aria-posinset="' + next + '"]'); i++) await frame();
		if (!l.querySelector('li[aria-posinset="' + next + '"]')) throw new Error("row " + next + " of " + total + " never shown");
		take();
	}
	l.scrollTop = top;
	await frame();
	return [...rows.keys()].sort((a, b) => b - a).map(k => rows.get(k));
}`
