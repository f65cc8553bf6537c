package golanes_test

import (
	"reflect"
	"testing"

	"go.uber.org/goleak"

	"sluice/wasm/gotrace/golanes"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		in   golanes.Lanes
	}{
		{"empty", golanes.Lanes{}},
		{"lanes and runs", golanes.Lanes{
			Names: []string{"goroutine 12", "goroutines · row 1", "proc 0", ""},
			Runs: []golanes.Run{
				{Lane: 0, Start: 1_700_000_000_000_000_000, End: 1_700_000_000_000_001_000, Task: 7, G: 12, P: 0},
				{Lane: 2, Start: 1_700_000_000_000_000_500, End: 1_700_000_000_000_000_500, G: 1 << 40, P: -1},
				{Lane: 3, Start: 1_699_999_999_000_000_000, End: 1_700_000_000_000_000_000, Task: 1 << 60, G: 1, P: 255},
			},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := golanes.Decode(golanes.Encode(&c.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := c.in
			if want.Runs == nil {
				want.Runs = []golanes.Run{}
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("got %+v, want %+v", *got, want)
			}
		})
	}
}

// TestDecodeDamaged decodes every cut of an encoding, and copies with a
// byte changed: an error or lanes, never a panic, and a cut one is never
// read as whole.
func TestDecodeDamaged(t *testing.T) {
	in := golanes.Lanes{Names: []string{"goroutine 1", "proc 0"}, Runs: []golanes.Run{
		{Lane: 0, Start: 100, End: 200, Task: 1, G: 1, P: 0},
		{Lane: 1, Start: 150, End: 400, G: 9, P: 0},
	}}
	b := golanes.Encode(&in)
	for n := range len(b) {
		if _, err := golanes.Decode(b[:n]); err == nil {
			t.Errorf("a cut to %d of %d bytes decoded", n, len(b))
		}
	}
	for i := range b {
		for _, v := range []byte{0, 0x7f, 0x80, 0xff} {
			d := append([]byte(nil), b...)
			d[i] = v
			if l, err := golanes.Decode(d); err == nil {
				for _, r := range l.Runs {
					if r.Lane < 0 || r.Lane >= len(l.Names) || r.End < r.Start {
						t.Errorf("byte %d set to %#x: run %+v outside the lanes or backwards", i, v, r)
					}
				}
			}
		}
	}
	if _, err := golanes.Decode([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}); err == nil {
		t.Error("a name count beyond the input decoded")
	}
}
