package ui

import (
	"net/url"
	"testing"
)

func TestRepairLink(t *testing.T) {
	for _, tc := range []struct {
		href, want string
		changed    bool
	}{
		{"http://h/#s=%%%", "http://h/#s=%25%25%25", true},
		{"http://h/#s=abc%2", "http://h/#s=abc%252", true},
		{"http://h/embed?v=2#s=a%zzb", "http://h/embed?v=2#s=a%25zzb", true},
		{"http://h/?v=2#s=abc", "http://h/?v=2#s=abc", false},
		{"http://h/#s=a%20b", "http://h/#s=a%20b", false},
		{"http://h/?q=%%#", "http://h/?q=%%#", false},
		{"http://h/", "http://h/", false},
	} {
		got, changed := repairLink(tc.href)
		if got != tc.want || changed != tc.changed {
			t.Errorf("repairLink(%q) = %q, %v; want %q, %v", tc.href, got, changed, tc.want, tc.changed)
		}
		if _, err := url.Parse(got); err != nil {
			t.Errorf("repairLink(%q) = %q, which net/url cannot parse: %v", tc.href, got, err)
		}
	}
}
