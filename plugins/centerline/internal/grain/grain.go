// Package grain sizes the ranges that the centre-line tracer's passes over an image's
// pixels hand each core at a time (the grain of sdk/parallel.For), so that a small
// image's passes run on one core.
//
// A pass split across cores pays for starting the second core and for the pixels it
// reads having been written from the first one's cache. On a small image that costs
// more than it saves: on a 2-core virtual machine, the 400 x 328 horse of the line-art
// corpus traced in 1.56 ms with one core and in 1.92 ms with two, every stage slower,
// while the 1.45 MP owl gained a fifth from the second core.
package grain

// Pixels is the fewest pixels a range of a pass holds.
const Pixels = 1 << 17

// Lines returns the grain of a pass over lines (rows, or columns) of length pixels
// each: at least least lines, and Pixels pixels.
func Lines(length, least int) int {
	length = max(1, length)
	return max(least, (Pixels+length-1)/length)
}

// Bands returns the grain of a pass over bands of rows rows of w pixels each: at least
// one band, and Pixels pixels.
func Bands(rows, w int) int {
	n := max(1, rows*w)
	return max(1, (Pixels+n-1)/n)
}
