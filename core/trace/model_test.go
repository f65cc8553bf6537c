package trace_test

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

func TestStamp(t *testing.T) {
	t.Run("zero", func(t *testing.T) {
		var z trace.Stamp
		if !z.IsZero() || !trace.StampOf(time.Time{}).IsZero() {
			t.Errorf("the zero Stamp and StampOf(time.Time{}) are not zero")
		}
		if got := z.Time(); !got.IsZero() {
			t.Errorf("zero Stamp's Time = %v, want the zero time.Time", got)
		}
		if got := z.UnixNano(); got != math.MinInt64 {
			t.Errorf("zero Stamp's UnixNano = %d, want math.MinInt64", got)
		}
		if got := z.Add(time.Second); !got.IsZero() {
			t.Errorf("zero Stamp plus a second = %v, want zero", got.Time())
		}
	})
	t.Run("round trip", func(t *testing.T) {
		for _, tm := range []time.Time{time.Unix(0, 0), time.Unix(0, -1), time.Unix(0, 1), time.Unix(1_700_000_000, 123), t0} {
			s := trace.StampOf(tm)
			if s.IsZero() {
				t.Errorf("StampOf(%v) is zero", tm)
			}
			if got := s.Time(); !got.Equal(tm) || got.Location() != time.UTC {
				t.Errorf("StampOf(%v).Time() = %v, want the same instant in UTC", tm, got)
			}
			if got := s.UnixNano(); got != tm.UnixNano() {
				t.Errorf("StampOf(%v).UnixNano() = %d, want %d", tm, got, tm.UnixNano())
			}
		}
	})
	t.Run("order", func(t *testing.T) {
		// The zero Stamp first, then negative, zero and positive Unix times.
		ss := []trace.Stamp{{}, trace.StampOf(time.Unix(0, -5)), trace.StampOf(time.Unix(0, 0)), trace.StampOf(time.Unix(0, 7)), trace.StampOf(t0)}
		for i, a := range ss {
			for j, b := range ss {
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got := a.Compare(b); got != want {
					t.Errorf("Compare(%d, %d) = %d, want %d", i, j, got, want)
				}
				if a.Before(b) != (want < 0) || a.After(b) != (want > 0) {
					t.Errorf("Before/After(%d, %d) = %v/%v, want Compare's %d", i, j, a.Before(b), a.After(b), want)
				}
			}
		}
	})
	t.Run("arithmetic", func(t *testing.T) {
		a, b := trace.StampOf(t0), trace.StampOf(t0.Add(1500*time.Millisecond))
		if got := b.Sub(a); got != 1500*time.Millisecond {
			t.Errorf("Sub = %v, want 1.5s", got)
		}
		if got := a.Add(1500 * time.Millisecond); got != b {
			t.Errorf("Add = %v, want %v", got.Time(), b.Time())
		}
		if got, want := a.Sub(trace.Stamp{}), t0.Sub(time.Time{}); got != want {
			t.Errorf("Sub of the zero Stamp = %v, want time.Time's %v", got, want)
		}
	})
	t.Run("clamped", func(t *testing.T) {
		far := time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC)
		if got := trace.StampOf(far).Time(); got.Year() != 2116 {
			t.Errorf("StampOf(year 2500) = %v, want it clamped to 2116", got)
		}
	})
}

// A Task holds no pointer, so that the collector has nothing to mark in
// a snapshot's tasks (BenchmarkCollect).
func TestTaskHoldsNoPointer(t *testing.T) {
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, path string) {
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				f := ty.Field(i)
				walk(f.Type, path+"."+f.Name)
			}
		case reflect.Array:
			walk(ty.Elem(), path+"[]")
		case reflect.String, reflect.Slice, reflect.Pointer, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			t.Errorf("Task%s is a %v, which holds a pointer", path, ty.Kind())
		}
	}
	walk(reflect.TypeFor[trace.Task](), "")
}

func TestSnapshotTexts(t *testing.T) {
	rec := feed(trace.Config{}, slices.Concat(limit(3), hold(1, 3, 1), []core.Event{
		{Kind: core.Started, Time: at(1), Task: 2, Name: "named", Key: "k", Weight: 1, Lane: 3},
		{Kind: core.Failed, Time: at(2), Task: 2, Err: errString("no")},
		{Kind: core.Started, Time: at(2), Task: 3, Weight: 1, Lane: 3},
	}))
	s := rec.Snapshot(time.Time{})
	var holder, named, unnamed *trace.Task
	for i := range s.Tasks {
		switch s.Tasks[i].ID {
		case 1:
			holder = &s.Tasks[i]
		case 2:
			named = &s.Tasks[i]
		case 3:
			unnamed = &s.Tasks[i]
		}
	}
	if holder == nil || named == nil || unnamed == nil {
		t.Fatalf("tasks %+v, want tasks 1, 2 and 3", s.Tasks)
	}
	if got := [3]string{s.Text(named.Name), s.Text(named.Key), s.Text(named.Err)}; got != [3]string{"named", "k", "no"} {
		t.Errorf("name, key, error = %q, want named, k, no", got)
	}
	if got := s.Text(unnamed.Name); got != "" || unnamed.Name.Len() != 0 || unnamed.Name != (trace.Text{}) {
		t.Errorf("an unnamed task's Name = %q (%d bytes), want the zero Text", got, unnamed.Name.Len())
	}
	if got := s.TaskLanes(holder); !slices.Equal(got, []int{0, 1, 2}) || holder.Lanes.Len() != 3 {
		t.Errorf("the holder of 3 tokens holds lanes %v (Len %d), want [0 1 2]", got, holder.Lanes.Len())
	}
	if got := s.TaskLanes(named); got != nil {
		t.Errorf("a task on one lane has Lanes %v, want nil", got)
	}
	// A task added by hand keeps its own texts and lanes.
	x := trace.Task{ID: 9, Name: s.AddText("added"), Lanes: s.AddLanes([]int{4, 5}), Lane: 4}
	s.Tasks = append(s.Tasks, x)
	if got := s.Text(x.Name); got != "added" {
		t.Errorf("added name = %q, want added", got)
	}
	if got := s.TaskLanes(&x); !slices.Equal(got, []int{4, 5}) {
		t.Errorf("added lanes = %v, want [4 5]", got)
	}
	if got := s.Text(named.Name); got != "named" {
		t.Errorf("after an AddText, an earlier name = %q, want named", got)
	}
	if got := s.AddLanes([]int{7}); got.Len() != 0 {
		t.Errorf("AddLanes of one lane = %d lanes, want none", got.Len())
	}
}

type errString string

func (e errString) Error() string { return string(e) }
