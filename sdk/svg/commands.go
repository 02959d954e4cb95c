package svg

// Commands joins path commands into path data: each command in the shorter of its
// absolute and relative forms (ties and the first command go to absolute), its letter
// left out where the previous command implies it, and numbers separated only where
// they would otherwise run together. Path uses it for numbers quantised to a fixed
// number of decimals; a writer with its own rounding (one that picks the decimals per
// number) can use it too, with its own number format.
//
// The zero value is not usable: set Format.
type Commands struct {
	// Format appends the text of a number, given in the writer's own fixed-point unit.
	Format func(dst []byte, n int64) []byte

	buf     []byte
	last    byte // the previous command letter written or implied
	lastNum bool // the data ends with a number
	lastDot bool // ... and that number has a decimal point
	scratch [2][]byte
}

// Reset empties the data, keeping the buffers and Format.
func (c *Commands) Reset() {
	*c = Commands{Format: c.Format, buf: c.buf[:0], scratch: c.scratch}
}

// Bytes returns the path data; valid until the next change to c.
func (c *Commands) Bytes() []byte { return c.buf }

// Len returns the length of the path data in bytes.
func (c *Commands) Len() int { return len(c.buf) }

// Emit writes cmd, an upper-case command letter, with the numbers abs, or its relative
// form with rel, whichever is shorter, and reports whether it chose the relative form.
func (c *Commands) Emit(cmd byte, abs, rel []int64) (relative bool) {
	out, st := c.render(0, cmd, abs)
	if len(c.buf) > 0 {
		if r, rst := c.render(1, cmd+('a'-'A'), rel); len(r) < len(out) {
			out, st, relative = r, rst, true
		}
	}
	c.buf = append(c.buf, out...)
	c.last, c.lastNum, c.lastDot = st.last, st.lastNum, st.lastDot
	return relative
}

// Close writes Z.
func (c *Commands) Close() {
	c.buf = append(c.buf, 'Z')
	c.last, c.lastNum, c.lastDot = 'Z', false, false
}

// tail is what the writer must know about the end of the data to append to it.
type tail struct {
	last             byte
	lastNum, lastDot bool
}

// render formats cmd with its numbers into scratch buffer i as they would be appended,
// leaving out the command letter where the previous command implies it, and returns
// the data's tail after them.
func (c *Commands) render(i int, cmd byte, nums []int64) ([]byte, tail) {
	out := c.scratch[i][:0]
	t := tail{last: cmd, lastNum: c.lastNum, lastDot: c.lastDot}
	if cmd != implied(c.last) {
		out = append(out, cmd)
		t.lastNum, t.lastDot = false, false
	}
	for _, n := range nums {
		var numBuf [24]byte
		num := c.Format(numBuf[:0], n)
		if t.lastNum && num[0] != '-' && !(num[0] == '.' && t.lastDot) {
			out = append(out, ' ')
		}
		out = append(out, num...)
		t.lastNum, t.lastDot = true, hasDot(num)
	}
	c.scratch[i] = out
	return out, t
}

// implied returns the command that a bare number list would continue after last: the
// same command, except that numbers after a move are lines.
func implied(last byte) byte {
	switch last {
	case 'M':
		return 'L'
	case 'm':
		return 'l'
	case 'Z', 'z', 0:
		return 0
	}
	return last
}

func hasDot(num []byte) bool {
	for _, c := range num {
		if c == '.' {
			return true
		}
	}
	return false
}
