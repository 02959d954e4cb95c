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

// MinPixels is the fewest pixels a pass splits across cores: one over fewer runs on
// the calling goroutine. It is a little under a 640 x 480 image's: the horse, the
// corpus's page and text run their passes on one core, the other line-art images as
// before, in the same ranges.
const MinPixels = 1 << 18

// Lines returns the grain of a pass over n lines (rows, or columns) of length pixels
// each: least lines, or all n at once when they hold fewer than MinPixels pixels.
func Lines(n, length, least int) int {
	if n*length < MinPixels {
		return max(1, n)
	}
	return least
}

// Pixels returns the grain of a pass over n pixels handed out least at a time: least,
// or all n at once when they are fewer than MinPixels.
func Pixels(n, least int) int { return Lines(n, 1, least) }
