package sim_test

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"sluice/wasm/sim"
)

// primitiveBranch matches a branch on which primitive a scenario runs:
// a comparison with a primitive's ID or a case of one.
var primitiveBranch = regexp.MustCompile(`([Pp]rimitive\s*[!=]=\s*(sim\.)?([A-Z]|"[a-z]))|(\bcase\s+(sim\.)?(Semaphore|WorkQueue|Processor|Keyed|Consume|Shared)\b)|([!=]=\s*(sim\.)?(Semaphore|WorkQueue|Processor|Keyed|Consume|Shared)\b)|(== "(workqueue|processor|semaphore|keyed|consume|shared)")`)

// TestOneDescriptorPerPrimitive counts the places outside the primitives'
// descriptors (their Kind, in the backend files) that branch on which
// primitive a scenario runs, in the playground's code (wasm/): there are
// none. The runner, the code generator and the page ask the Kind.
func TestOneDescriptorPerPrimitive(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no file system under GOOS=js")
	}
	var found []string
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if strings.HasPrefix(filepath.Base(path), "backend_") {
			return nil // the descriptors
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if primitiveBranch.MatchString(line) {
				found = append(found, path+":"+itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d primitive-dependent branch points outside the descriptors", len(found))
	if len(found) > 0 {
		t.Errorf("code outside the descriptors branches on the primitive; ask its sim.Kind instead:\n%s", strings.Join(found, "\n"))
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestKinds checks every primitive's descriptor: found by its ID, with a
// title, a noun, the limit's words, a backend and code, and a signature
// that names it.
func TestKinds(t *testing.T) {
	for _, k := range sim.Kinds() {
		if sim.KindOf(k.ID) != k {
			t.Errorf("KindOf(%q) does not find its kind", k.ID)
		}
		if k.Title == "" || k.Noun == "" || k.LimitWhat == "" || k.LimitLabel == "" || k.Signature == nil {
			t.Errorf("%s: the descriptor lacks words or a signature: %+v", k.ID, k)
		}
		if k.HasGroups() != (k.GroupSize != "" && len(k.DefaultGroups) > 0) {
			t.Errorf("%s: a kind with groups names their size and has default groups", k.ID)
		}
	}
	if sim.KindOf("nope") != nil {
		t.Errorf("KindOf found a kind for an unknown ID")
	}
}
