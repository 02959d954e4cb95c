package keep

import "testing"

func TestCacheKeepsTheLastSmallBufferInItsSlot(t *testing.T) {
	for _, tc := range []struct {
		name  string
		small bool
		slot  bool // the buffer put is in the slot after
	}{
		{"small", true, true},
		{"large", false, false},
	} {
		var c Cache[[]int]
		p := c.Get()
		if p == nil || *p != nil {
			t.Fatalf("%s: Get of an empty cache = %v, want a new zero buffer", tc.name, p)
		}
		*p = make([]int, 10)
		c.Put(p, tc.small)
		if got := c.last.Load() == p; got != tc.slot {
			t.Errorf("%s: in the slot %v, want %v", tc.name, got, tc.slot)
		}
		if tc.slot {
			if q := c.Get(); q != p {
				t.Errorf("%s: Get after Put returned another buffer", tc.name)
			}
		}
	}
}

func TestCacheSlotHoldsOneBufferAndThePoolTheRest(t *testing.T) {
	var c Cache[[]int]
	a, b := c.Get(), c.Get()
	c.Put(a, true)
	c.Put(b, true) // the slot is taken: b goes to the pool
	if c.last.Load() != a {
		t.Error("the slot does not hold the first buffer put")
	}
	if c.Get() != a {
		t.Error("Get did not return the slot's buffer first")
	}
}

func TestGrownReusesCapacityAndKeepsContents(t *testing.T) {
	buf := make([]int, 4, 8)
	buf[0] = 7
	for _, tc := range []struct {
		n     int
		reuse bool
	}{{2, true}, {8, true}, {9, false}} {
		got := Grown(buf, tc.n)
		if len(got) != tc.n {
			t.Errorf("Grown(cap 8, %d): len %d", tc.n, len(got))
		}
		if reused := &got[0] == &buf[0]; reused != tc.reuse {
			t.Errorf("Grown(cap 8, %d): reused %v, want %v", tc.n, reused, tc.reuse)
		}
		if tc.reuse && got[0] != 7 {
			t.Errorf("Grown(cap 8, %d) lost the contents", tc.n)
		}
	}
}

func TestTakeReusesAKeptBufferLargeEnough(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kept  int // the length of the buffer put before (0: none)
		n     int
		dirty bool
	}{
		{"none kept", 0, 5, false},
		{"large enough", 8, 5, true},
		{"exactly", 5, 5, true},
		{"too small", 4, 5, false},
	} {
		var c Cache[[]int]
		if tc.kept > 0 {
			buf := make([]int, tc.kept)
			for i := range buf {
				buf[i] = 7
			}
			c.Put(&buf, true)
		}
		got, dirty := Take(&c, tc.n)
		if len(got) != tc.n || dirty != tc.dirty {
			t.Errorf("%s: len %d dirty %v, want %d %v", tc.name, len(got), dirty, tc.n, tc.dirty)
		}
		if !dirty {
			for i, v := range got {
				if v != 0 {
					t.Errorf("%s: a new buffer holds %d at %d", tc.name, v, i)
				}
			}
		}
	}
}
