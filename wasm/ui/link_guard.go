package ui

import (
	"net/url"
	"strings"
	"sync/atomic"
)

// repairLink returns href with every "%" of its fragment that starts no
// escape (a "%" not followed by two hex digits, as a link cut short by a
// chat app or typed by hand leaves) written as "%25", and whether it
// changed anything. go-app parses the page's URL with net/url on start and
// on every history change, and a malformed escape in the fragment makes
// that parse fail and go-app dereference the nil URL: the page never
// starts. A malformed escape in the query is left alone, since net/url
// keeps the query unparsed. If the repaired URL still cannot be parsed,
// the fragment is dropped.
func repairLink(href string) (string, bool) {
	rest, frag, ok := strings.Cut(href, "#")
	if !ok {
		return href, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(frag); i++ {
		if frag[i] == '%' && (i+2 >= len(frag) || !isHex(frag[i+1]) || !isHex(frag[i+2])) {
			b.WriteString("%25")
			changed = true
			continue
		}
		b.WriteByte(frag[i])
	}
	fixed := rest + "#" + b.String()
	if _, err := url.Parse(fixed); err != nil {
		return rest, true
	}
	return fixed, changed
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// linkRepaired is set when GuardLink repaired the page's link (a "%"
// starting no escape); the page reads and clears it when it opens the
// link, and says the link is damaged.
var linkRepaired atomic.Bool

// damagedLink is the notice for a link whose fragment held a malformed
// escape.
const damagedLink = "The link is damaged: it holds a “%” that starts no escape, as a link cut short does, so its scenario cannot be read."
